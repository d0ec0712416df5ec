# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The gates the kubelet v1.31.14 registers (_feature_gate_table reads them); it enforces no dependencies."""

from __future__ import annotations

# name, stage, default, "locked" when LockToDefault.
GATES = """
APIResponseCompression                         Beta       true
APIServerIdentity                              Beta       true
APIServerTracing                               Beta       true
APIServingWithRoutine                          Alpha      false
AllAlpha                                       Alpha      false
AllBeta                                        Beta       false
AllowDNSOnlyNodeCSR                            Deprecated false
AllowInsecureKubeletCertificateSigningRequests Deprecated false
AnonymousAuthConfigurableEndpoints             Alpha      false
AnyVolumeDataSource                            Beta       true
AppArmor                                       GA         true  locked
AppArmorFields                                 GA         true  locked
AuthorizeNodeWithSelectors                     Alpha      false
AuthorizeWithSelectors                         Alpha      false
CPUManager                                     GA         true  locked
CPUManagerPolicyAlphaOptions                   Alpha      false
CPUManagerPolicyBetaOptions                    Beta       true
CPUManagerPolicyOptions                        Beta       true
CRDValidationRatcheting                        Beta       true
CSIMigrationPortworx                           Beta       true
CSIVolumeHealth                                Alpha      false
CloudControllerManagerWebhook                  Alpha      false
ClusterTrustBundle                             Alpha      false
ClusterTrustBundleProjection                   Alpha      false
ComponentSLIs                                  Beta       true
ConcurrentWatchObjectDecode                    Beta       false
ConsistentListFromCache                        Beta       true
ContainerCheckpoint                            Beta       true
ContextualLogging                              Beta       true
CoordinatedLeaderElection                      Alpha      false
CronJobsScheduledAnnotation                    Beta       true
CrossNamespaceVolumeDataSource                 Alpha      false
CustomCPUCFSQuotaPeriod                        Alpha      false
CustomResourceFieldSelectors                   Beta       true
DRAControlPlaneController                      Alpha      false
DevicePluginCDIDevices                         GA         true  locked
DisableAllocatorDualWrite                      Alpha      false
DisableCloudProviders                          GA         true  locked
DisableKubeletCloudCredentialProviders         GA         true  locked
DisableNodeKubeProxyVersion                    Deprecated false
DynamicResourceAllocation                      Alpha      false
EventedPLEG                                    Alpha      false
ExecProbeTimeout                               GA         true
GracefulNodeShutdown                           Beta       true
GracefulNodeShutdownBasedOnPodPriority         Beta       true
HPAContainerMetrics                            GA         true  locked
HPAScaleToZero                                 Alpha      false
HonorPVReclaimPolicy                           Beta       true
ImageMaximumGCAge                              Beta       true
ImageVolume                                    Alpha      false
InPlacePodVerticalScaling                      Alpha      false
InTreePluginPortworxUnregister                 Alpha      false
InformerResourceVersion                        Alpha      false
JobBackoffLimitPerIndex                        Beta       true
JobManagedBy                                   Alpha      false
JobPodFailurePolicy                            GA         true  locked
JobPodReplacementPolicy                        Beta       true
JobSuccessPolicy                               Beta       true
KMSv1                                          Deprecated false
KubeletCgroupDriverFromCRI                     Beta       true
KubeletInUserNamespace                         Alpha      false
KubeletPodResourcesDynamicResources            Alpha      false
KubeletPodResourcesGet                         Alpha      false
KubeletSeparateDiskGC                          Beta       true
KubeletTracing                                 Beta       true
LegacyServiceAccountTokenCleanUp               GA         true  locked
LoadBalancerIPMode                             Beta       true
LocalStorageCapacityIsolationFSQuotaMonitoring Beta       false
LogarithmicScaleDown                           GA         true  locked
LoggingAlphaOptions                            Alpha      false
LoggingBetaOptions                             Beta       true
MatchLabelKeysInPodAffinity                    Beta       true
MatchLabelKeysInPodTopologySpread              Beta       true
MaxUnavailableStatefulSet                      Alpha      false
MemoryManager                                  Beta       true
MemoryQoS                                      Alpha      false
MultiCIDRServiceAllocator                      Beta       false
MutatingAdmissionPolicy                        Alpha      false
NFTablesProxyMode                              Beta       true
NodeInclusionPolicyInPodTopologySpread         Beta       true
NodeLogQuery                                   Beta       true
NodeSwap                                       Beta       true
OpenAPIEnums                                   Beta       true
OrderedNamespaceDeletion                       Beta       false
PDBUnhealthyPodEvictionPolicy                  GA         true  locked
PersistentVolumeLastPhaseTransitionTime        GA         true  locked
PodAndContainerStatsFromCRI                    Alpha      false
PodDeletionCost                                Beta       true
PodIndexLabel                                  Beta       true
PodLifecycleSleepAction                        Beta       true
PodReadyToStartContainersCondition             Beta       true
PodSchedulingReadiness                         GA         true  locked
PortForwardWebsockets                          Beta       true
ProcMountType                                  Beta       false
QOSReserved                                    Alpha      false
RecoverVolumeExpansionFailure                  Alpha      false
RecursiveReadOnlyMounts                        Beta       true
RelaxedEnvironmentVariableValidation           Alpha      false
ReloadKubeletServerCertificateFile             Beta       true
ResilientWatchCacheInitialization              Beta       false
ResourceHealthStatus                           Alpha      false
RetryGenerateName                              Beta       true
RotateKubeletServerCertificate                 Beta       true
RuntimeClassInImageCriApi                      Alpha      false
SELinuxMount                                   Alpha      false
SELinuxMountReadWriteOncePod                   Beta       true
SchedulerQueueingHints                         Beta       false
SeparateCacheWatchRPC                          Beta       true
SeparateTaintEvictionController                Beta       true
ServiceAccountTokenJTI                         Beta       true
ServiceAccountTokenNodeBinding                 Beta       true
ServiceAccountTokenNodeBindingValidation       Beta       true
ServiceAccountTokenPodNodeInfo                 Beta       true
ServiceTrafficDistribution                     Beta       true
SidecarContainers                              Beta       true
SizeMemoryBackedVolumes                        Beta       true
StatefulSetAutoDeletePVC                       Beta       true
StorageNamespaceIndex                          Beta       true
StorageVersionAPI                              Alpha      false
StorageVersionHash                             Beta       true
StorageVersionMigrator                         Alpha      false
StreamingCollectionEncodingToJSON              Beta       false
StreamingCollectionEncodingToProtobuf          Beta       false
StrictCostEnforcementForVAP                    Beta       false
StrictCostEnforcementForWebhooks               Beta       false
StructuredAuthenticationConfiguration          Beta       true
StructuredAuthorizationConfiguration           Beta       true
SupplementalGroupsPolicy                       Alpha      false
TopologyAwareHints                             Beta       true
TopologyManagerPolicyAlphaOptions              Alpha      false
TopologyManagerPolicyBetaOptions               Beta       true
TopologyManagerPolicyOptions                   Beta       true
TranslateStreamCloseWebsocketRequests          Beta       true
UnauthenticatedHTTP2DOSMitigation              Beta       true
UnknownVersionInteroperabilityProxy            Alpha      false
UserNamespacesPodSecurityStandards             Alpha      false
UserNamespacesSupport                          Beta       false
VolumeAttributesClass                          Beta       false
VolumeCapacityPriority                         Alpha      false
WatchCacheInitializationPostStartHook          Beta       false
WatchFromStorageWithoutResourceVersion         Beta       false
WatchList                                      Alpha      false
WatchListClient                                Beta       false
WinDSR                                         Alpha      false
WinOverlay                                     Beta       true
WindowsHostNetwork                             Alpha      true
"""
