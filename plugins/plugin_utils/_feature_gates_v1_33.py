# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The gates the kubelet v1.33.13 registers (_feature_gate_table reads them); it enforces no dependencies."""

from __future__ import annotations

# name, stage, default, "locked" when LockToDefault.
GATES = """
APIResponseCompression                           Beta       true
APIServerIdentity                                Beta       true
APIServerTracing                                 Beta       true
APIServingWithRoutine                            Alpha      false
AggregatedDiscoveryRemoveBetaType                Deprecated true
AllAlpha                                         Alpha      false
AllBeta                                          Beta       false
AllowDNSOnlyNodeCSR                              Deprecated false
AllowInsecureKubeletCertificateSigningRequests   Deprecated false
AllowOverwriteTerminationGracePeriodSeconds      Deprecated false
AllowParsingUserUIDFromCertAuth                  Beta       true
AllowUnsafeMalformedObjectDeletion               Alpha      false
AnonymousAuthConfigurableEndpoints               Beta       true
AnyVolumeDataSource                              GA         true  locked
AuthorizeNodeWithSelectors                       Beta       true
AuthorizeWithSelectors                           Beta       true
BtreeWatchCache                                  GA         true  locked
CBORServingAndStorage                            Alpha      false
CPUManagerPolicyAlphaOptions                     Alpha      false
CPUManagerPolicyBetaOptions                      Beta       true
CPUManagerPolicyOptions                          GA         true  locked
CRDValidationRatcheting                          GA         true  locked
CSIMigrationPortworx                             GA         true  locked
CSIVolumeHealth                                  Alpha      false
ClientsAllowCBOR                                 Alpha      false
ClientsPreferCBOR                                Alpha      false
CloudControllerManagerWebhook                    Alpha      false
ClusterTrustBundle                               Beta       false
ClusterTrustBundleProjection                     Beta       false
ComponentFlagz                                   Alpha      false
ComponentSLIs                                    GA         true  locked
ComponentStatusz                                 Alpha      false
ConcurrentWatchObjectDecode                      Beta       false
ConsistentListFromCache                          Beta       true
ContainerCheckpoint                              Beta       true
ContainerStopSignals                             Alpha      false
ContextualLogging                                Beta       true
CoordinatedLeaderElection                        Beta       false
CronJobsScheduledAnnotation                      GA         true  locked
CrossNamespaceVolumeDataSource                   Alpha      false
CustomCPUCFSQuotaPeriod                          Alpha      false
CustomResourceFieldSelectors                     GA         true  locked
DRAAdminAccess                                   Alpha      false
DRADeviceTaints                                  Alpha      false
DRAPartitionableDevices                          Alpha      false
DRAPrioritizedList                               Alpha      false
DRAResourceClaimDeviceStatus                     Beta       true
DeclarativeValidation                            Beta       true
DeclarativeValidationTakeover                    Beta       false
DeploymentReplicaSetTerminatingReplicas          Alpha      false
DevicePluginCDIDevices                           GA         true  locked
DisableAllocatorDualWrite                        Beta       false
DisableCPUQuotaWithExclusiveCPUs                 Beta       true
DisableNodeKubeProxyVersion                      Deprecated true
DynamicResourceAllocation                        Beta       false
EventedPLEG                                      Alpha      false
ExecProbeTimeout                                 GA         true
ExternalServiceAccountTokenSigner                Alpha      false
GitRepoVolumeDriver                              Deprecated false
GracefulNodeShutdown                             Beta       true
GracefulNodeShutdownBasedOnPodPriority           Beta       true
HPAConfigurableTolerance                         Alpha      false
HPAScaleToZero                                   Alpha      false
HonorPVReclaimPolicy                             GA         true  locked
ImageMaximumGCAge                                Beta       true
ImageVolume                                      Beta       false
InOrderInformers                                 Beta       true
InPlacePodVerticalScaling                        Beta       true
InPlacePodVerticalScalingAllocatedStatus         Deprecated false
InPlacePodVerticalScalingExclusiveCPUs           Alpha      false
InTreePluginPortworxUnregister                   Alpha      false
InformerResourceVersion                          Alpha      false
JobBackoffLimitPerIndex                          GA         true  locked
JobManagedBy                                     Beta       true
JobPodReplacementPolicy                          Beta       true
JobSuccessPolicy                                 GA         true  locked
KMSv1                                            Deprecated false
KubeletCgroupDriverFromCRI                       Beta       true
KubeletCrashLoopBackOffMax                       Alpha      false
KubeletEnsureSecretPulledImages                  Alpha      false
KubeletFineGrainedAuthz                          Beta       true
KubeletInUserNamespace                           Alpha      false
KubeletPSI                                       Alpha      false
KubeletPodResourcesDynamicResources              Alpha      false
KubeletPodResourcesGet                           Alpha      false
KubeletRegistrationGetOnExistsOnly               Deprecated false
KubeletSeparateDiskGC                            Beta       true
KubeletServiceAccountTokenForCredentialProviders Alpha      false
KubeletTracing                                   Beta       true
ListFromCacheSnapshot                            Alpha      false
LoadBalancerIPMode                               GA         true  locked
LocalStorageCapacityIsolationFSQuotaMonitoring   Beta       false
LogarithmicScaleDown                             GA         true  locked
LoggingAlphaOptions                              Alpha      false
LoggingBetaOptions                               Beta       true
MatchLabelKeysInPodAffinity                      GA         true  locked
MatchLabelKeysInPodTopologySpread                Beta       true
MaxUnavailableStatefulSet                        Alpha      false
MemoryManager                                    GA         true  locked
MemoryQoS                                        Alpha      false
MultiCIDRServiceAllocator                        GA         true
MutableCSINodeAllocatableCount                   Alpha      false
MutatingAdmissionPolicy                          Alpha      false
NFTablesProxyMode                                GA         true  locked
NodeInclusionPolicyInPodTopologySpread           GA         true  locked
NodeLogQuery                                     Beta       true
NodeSwap                                         Beta       true
OpenAPIEnums                                     Beta       true
OrderedNamespaceDeletion                         Beta       true
PodAndContainerStatsFromCRI                      Alpha      false
PodDeletionCost                                  Beta       true
PodIndexLabel                                    GA         true  locked
PodLevelResources                                Alpha      false
PodLifecycleSleepAction                          Beta       true
PodLifecycleSleepActionAllowZero                 Beta       true
PodLogsQuerySplitStreams                         Alpha      false
PodObservedGenerationTracking                    Alpha      false
PodReadyToStartContainersCondition               Beta       true
PodSchedulingReadiness                           GA         true  locked
PodTopologyLabelsAdmission                       Alpha      false
PortForwardWebsockets                            Beta       true
PreferSameTrafficDistribution                    Alpha      false
ProcMountType                                    Beta       true
QOSReserved                                      Alpha      false
RecoverVolumeExpansionFailure                    Beta       true
RecursiveReadOnlyMounts                          GA         true  locked
ReduceDefaultCrashLoopBackOffDecay               Alpha      false
RelaxedDNSSearchValidation                       Beta       true
RelaxedEnvironmentVariableValidation             Beta       true
ReloadKubeletServerCertificateFile               Beta       true
RemoteRequestHeaderUID                           Beta       true
ResilientWatchCacheInitialization                Beta       true
ResourceHealthStatus                             Alpha      false
RetryGenerateName                                GA         true  locked
RotateKubeletServerCertificate                   Beta       true
RuntimeClassInImageCriApi                        Alpha      false
SELinuxChangePolicy                              Beta       true
SELinuxMount                                     Beta       false
SELinuxMountReadWriteOncePod                     Beta       true
SchedulerAsyncPreemption                         Beta       true
SchedulerPopFromBackoffQ                         Beta       true
SchedulerQueueingHints                           Beta       true
SeparateCacheWatchRPC                            Deprecated false
SeparateTaintEvictionController                  Beta       true
ServiceAccountNodeAudienceRestriction            Beta       true
ServiceAccountTokenJTI                           GA         true  locked
ServiceAccountTokenNodeBinding                   GA         true  locked
ServiceAccountTokenNodeBindingValidation         GA         true  locked
ServiceAccountTokenPodNodeInfo                   GA         true  locked
ServiceTrafficDistribution                       GA         true  locked
SidecarContainers                                GA         true  locked
SizeMemoryBackedVolumes                          GA         true  locked
StatefulSetAutoDeletePVC                         GA         true  locked
StorageCapacityScoring                           Alpha      false
StorageNamespaceIndex                            Deprecated true
StorageVersionAPI                                Alpha      false
StorageVersionHash                               Beta       true
StorageVersionMigrator                           Alpha      false
StreamingCollectionEncodingToJSON                Beta       true
StreamingCollectionEncodingToProtobuf            Beta       true
StrictCostEnforcementForVAP                      GA         true  locked
StrictCostEnforcementForWebhooks                 GA         true  locked
StrictIPCIDRValidation                           Alpha      false
StructuredAuthenticationConfiguration            Beta       true
StructuredAuthorizationConfiguration             GA         true  locked
SupplementalGroupsPolicy                         Beta       true
SystemdWatchdog                                  Beta       true
TopologyAwareHints                               GA         true  locked
TopologyManagerPolicyAlphaOptions                Alpha      false
TopologyManagerPolicyBetaOptions                 Beta       true
TopologyManagerPolicyOptions                     GA         true
TranslateStreamCloseWebsocketRequests            Beta       true
UnauthenticatedHTTP2DOSMitigation                Beta       true
UnknownVersionInteroperabilityProxy              Alpha      false
UserNamespacesPodSecurityStandards               Alpha      false
UserNamespacesSupport                            Beta       true
VolumeAttributesClass                            Beta       false
WatchCacheInitializationPostStartHook            Beta       false
WatchFromStorageWithoutResourceVersion           Deprecated false locked
WatchList                                        Beta       false
WatchListClient                                  Beta       false
WinDSR                                           Beta       true
WinOverlay                                       Beta       true
WindowsCPUAndMemoryAffinity                      Alpha      false
WindowsGracefulNodeShutdown                      Alpha      false
WindowsHostNetwork                               Deprecated false
"""
