# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The gates the kubelet v1.36.2 registers, and the dependencies between them it enforces (_feature_gate_table reads them)."""

from __future__ import annotations

# name, stage, default, "locked" when LockToDefault.
GATES = """
APIResponseCompression                               Beta       true
APIServerIdentity                                    Beta       true
APIServerTracing                                     GA         true  locked
APIServingWithRoutine                                Alpha      false
AggregatedDiscoveryRemoveBetaType                    Deprecated true  locked
AllAlpha                                             Alpha      false
AllBeta                                              Beta       false
AllowDNSOnlyNodeCSR                                  Deprecated false
AllowInsecureKubeletCertificateSigningRequests       Deprecated false
AllowOverwriteTerminationGracePeriodSeconds          Deprecated false locked
AllowParsingUserUIDFromCertAuth                      Beta       true
AllowUnsafeMalformedObjectDeletion                   Alpha      false
AnonymousAuthConfigurableEndpoints                   GA         true  locked
AnyVolumeDataSource                                  GA         true  locked
AtomicFIFO                                           Beta       true
AuthorizeNodeWithSelectors                           GA         true  locked
AuthorizePodWebsocketUpgradeCreatePermission         Beta       true
AuthorizeWithSelectors                               GA         true  locked
BtreeWatchCache                                      GA         true  locked
CBORServingAndStorage                                Alpha      false
CPUManagerPolicyAlphaOptions                         Alpha      false
CPUManagerPolicyBetaOptions                          Beta       true
CPUManagerPolicyOptions                              GA         true  locked
CRDObservedGenerationTracking                        Beta       true
CRDValidationRatcheting                              GA         true  locked
CRIListStreaming                                     Alpha      false
CSIServiceAccountTokenSecrets                        GA         true  locked
CSIVolumeHealth                                      Alpha      false
ChangeContainerStatusOnKubeletRestart                Deprecated false
ClearingNominatedNodeNameAfterBinding                Beta       true
ClientsAllowCARotation                               Beta       true
ClientsAllowCBOR                                     Alpha      false
ClientsAllowTLSCacheGC                               Beta       true
ClientsPreferCBOR                                    Alpha      false
CloudControllerManagerWatchBasedRoutesReconciliation Alpha      false
CloudControllerManagerWebhook                        Alpha      false
ClusterTrustBundle                                   Beta       false
ClusterTrustBundleProjection                         Beta       false
ComponentFlagz                                       Beta       true
ComponentStatusz                                     Beta       true
ConcurrentWatchObjectDecode                          Beta       false
ConsistentListFromCache                              GA         true  locked
ConstrainedImpersonation                             Beta       true
ContainerCheckpoint                                  Beta       true
ContainerRestartRules                                Beta       true
ContainerStopSignals                                 Alpha      false
ContextualLogging                                    Beta       true
ControllerManagerReleaseLeaderElectionLockOnExit     Alpha      false
CoordinatedLeaderElection                            Beta       false
CrossNamespaceVolumeDataSource                       Alpha      false
CustomCPUCFSQuotaPeriod                              GA         true
CustomResourceFieldSelectors                         GA         true  locked
DRAAdminAccess                                       GA         true  locked
DRAConsumableCapacity                                Beta       true
DRADeviceBindingConditions                           Beta       true
DRADeviceTaintRules                                  Beta       false
DRADeviceTaints                                      Beta       true
DRAExtendedResource                                  Beta       true
DRAListTypeAttributes                                Alpha      false
DRANodeAllocatableResources                          Alpha      false
DRAPartitionableDevices                              Beta       true
DRAPrioritizedList                                   GA         true
DRAResourceClaimDeviceStatus                         Beta       true
DRAResourceClaimGranularStatusAuthorization          Beta       true
DRAResourcePoolStatus                                Alpha      false
DRASchedulerFilterTimeout                            Beta       true
DRAWorkloadResourceClaims                            Alpha      false
DeclarativeValidation                                GA         true  locked
DeclarativeValidationBeta                            Beta       true
DeclarativeValidationTakeover                        Deprecated false
DeploymentReplicaSetTerminatingReplicas              Beta       true
DetectCacheInconsistency                             Beta       true
DisableAllocatorDualWrite                            GA         true  locked
DisableCPUQuotaWithExclusiveCPUs                     Deprecated true
DisableNodeKubeProxyVersion                          Deprecated true  locked
DynamicResourceAllocation                            GA         true  locked
EnvFiles                                             Beta       true
EventedPLEG                                          Alpha      false
ExecProbeTimeout                                     GA         true  locked
ExtendWebSocketsToKubelet                            Beta       true
ExternalServiceAccountTokenSigner                    GA         true  locked
GangScheduling                                       Alpha      false
GenericWorkload                                      Alpha      false
GitRepoVolumeDriver                                  Deprecated false locked
GracefulNodeShutdown                                 Beta       true
GracefulNodeShutdownBasedOnPodPriority               Beta       true
HPAConfigurableTolerance                             Beta       true
HPAScaleToZero                                       Alpha      false
HostnameOverride                                     Beta       true
ImageMaximumGCAge                                    GA         true  locked
ImageVolume                                          GA         true  locked
ImageVolumeWithDigest                                Alpha      false
InOrderInformers                                     GA         true  locked
InOrderInformersBatchProcess                         Beta       true
InPlacePodLevelResourcesVerticalScaling              Beta       true
InPlacePodVerticalScaling                            GA         true  locked
InPlacePodVerticalScalingExclusiveCPUs               Alpha      false
InPlacePodVerticalScalingExclusiveMemory             Alpha      false
InPlacePodVerticalScalingInitContainers              Beta       true
InformerResourceVersion                              GA         true
JobBackoffLimitPerIndex                              GA         true  locked
JobManagedBy                                         GA         true  locked
JobPodReplacementPolicy                              GA         true  locked
JobSuccessPolicy                                     GA         true  locked
KMSv1                                                Deprecated false
KubeletCgroupDriverFromCRI                           GA         true  locked
KubeletCrashLoopBackOffMax                           Beta       true
KubeletEnsureSecretPulledImages                      Beta       true
KubeletFineGrainedAuthz                              GA         true  locked
KubeletInUserNamespace                               Alpha      false
KubeletPSI                                           GA         true  locked
KubeletPodResourcesDynamicResources                  GA         true  locked
KubeletPodResourcesGet                               GA         true  locked
KubeletPodResourcesListUseActivePods                 Deprecated true
KubeletRegistrationGetOnExistsOnly                   Deprecated false
KubeletSeparateDiskGC                                Beta       true
KubeletServiceAccountTokenForCredentialProviders     Beta       true
KubeletTracing                                       GA         true  locked
ListFromCacheSnapshot                                Beta       true
LocalStorageCapacityIsolationFSQuotaMonitoring       Beta       false
LogarithmicScaleDown                                 GA         true  locked
LoggingAlphaOptions                                  Alpha      false
LoggingBetaOptions                                   Beta       true
ManifestBasedAdmissionControlConfig                  Alpha      false
MatchLabelKeysInPodAffinity                          GA         true  locked
MatchLabelKeysInPodTopologySpread                    Beta       true
MatchLabelKeysInPodTopologySpreadSelectorMerge       Beta       true
MaxUnavailableStatefulSet                            Beta       false
MemoryQoS                                            Alpha      false
MultiCIDRServiceAllocator                            GA         true  locked
MutableCSINodeAllocatableCount                       GA         true  locked
MutablePVNodeAffinity                                Alpha      false
MutablePodResourcesForSuspendedJobs                  Beta       true
MutableSchedulingDirectivesForSuspendedJobs          Beta       true
MutatingAdmissionPolicy                              GA         true
NFTablesProxyMode                                    GA         true  locked
NativeHistograms                                     Alpha      false
NodeDeclaredFeatures                                 Beta       true
NodeInclusionPolicyInPodTopologySpread               GA         true  locked
NodeLogQuery                                         GA         true  locked
NodeSwap                                             GA         true  locked
NominatedNodeNameForExpectation                      Beta       true
OpenAPIEnums                                         Beta       true
OpportunisticBatching                                Beta       true
OrderedNamespaceDeletion                             GA         true  locked
PLEGOnDemandRelist                                   Beta       true
PersistentVolumeClaimUnusedSinceTime                 Alpha      false
PodAndContainerStatsFromCRI                          Alpha      false
PodCertificateRequest                                Beta       false
PodDeletionCost                                      Beta       true
PodLevelResourceManagers                             Alpha      false
PodLevelResources                                    Beta       true
PodLifecycleSleepAction                              GA         true  locked
PodLifecycleSleepActionAllowZero                     GA         true  locked
PodLogsQuerySplitStreams                             Alpha      false
PodObservedGenerationTracking                        GA         true  locked
PodReadyToStartContainersCondition                   Beta       true
PodSchedulingReadiness                               GA         true  locked
PodTopologyLabelsAdmission                           Beta       true
PodsAPI                                              Alpha      false
PortForwardWebsockets                                Beta       true
PreferSameTrafficDistribution                        GA         true  locked
PreventStaticPodAPIReferences                        Beta       true
ProcMountType                                        GA         true  locked
QOSReserved                                          Alpha      false
RecoverVolumeExpansionFailure                        GA         true  locked
RecursiveReadOnlyMounts                              GA         true  locked
ReduceDefaultCrashLoopBackOffDecay                   Alpha      false
RelaxedDNSSearchValidation                           GA         true  locked
RelaxedEnvironmentVariableValidation                 GA         true  locked
RelaxedServiceNameValidation                         Beta       true
ReloadKubeletClientCAFile                            Beta       true
ReloadKubeletServerCertificateFile                   Beta       true
RemoteRequestHeaderUID                               Beta       true
ResilientWatchCacheInitialization                    GA         true  locked
ResourceHealthStatus                                 Beta       true
ResourceHealthStatusMessage                          Beta       true
RestartAllContainersOnContainerExits                 Beta       true
RetryGenerateName                                    GA         true  locked
RotateKubeletServerCertificate                       Beta       true
RuntimeClassInImageCriApi                            Alpha      false
SELinuxChangePolicy                                  GA         true  locked
SELinuxMount                                         Beta       false
SELinuxMountReadWriteOncePod                         GA         true  locked
SchedulerAsyncAPICalls                               Beta       false
SchedulerAsyncPreemption                             Beta       true
SchedulerPopFromBackoffQ                             Beta       true
SchedulerQueueingHints                               GA         true  locked
SeparateCacheWatchRPC                                Deprecated false locked
SeparateTaintEvictionController                      GA         true  locked
ServiceAccountNodeAudienceRestriction                Beta       true
ServiceAccountTokenJTI                               GA         true  locked
ServiceAccountTokenNodeBinding                       GA         true  locked
ServiceAccountTokenNodeBindingValidation             GA         true  locked
ServiceAccountTokenPodNodeInfo                       GA         true  locked
ShardedListAndWatch                                  Alpha      false
SidecarContainers                                    GA         true  locked
SizeBasedListCostEstimate                            Beta       true
StaleControllerConsistencyDaemonSet                  Beta       true
StaleControllerConsistencyJob                        Beta       true
StaleControllerConsistencyReplicaSet                 Beta       true
StaleControllerConsistencyStatefulSet                Beta       true
StatefulSetSemanticRevisionComparison                Beta       true
StorageCapacityScoring                               Alpha      false
StorageNamespaceIndex                                Deprecated true
StorageVersionAPI                                    Alpha      false
StorageVersionHash                                   Beta       true
StorageVersionMigrator                               Beta       false
StreamingCollectionEncodingToJSON                    GA         true  locked
StreamingCollectionEncodingToProtobuf                GA         true  locked
StrictIPCIDRValidation                               Beta       true
StructuredAuthenticationConfiguration                GA         true  locked
StructuredAuthenticationConfigurationEgressSelector  Beta       true
StructuredAuthenticationConfigurationJWKSMetrics     Beta       true
SupplementalGroupsPolicy                             GA         true  locked
SystemdWatchdog                                      GA         true  locked
TaintTolerationComparisonOperators                   Alpha      false
TokenRequestServiceAccountUIDValidation              Beta       true
TopologyAwareWorkloadScheduling                      Alpha      false
TopologyManagerPolicyAlphaOptions                    Alpha      false
TopologyManagerPolicyBetaOptions                     Beta       true
TopologyManagerPolicyOptions                         GA         true  locked
TranslateStreamCloseWebsocketRequests                Beta       true
UnauthenticatedHTTP2DOSMitigation                    Beta       true
UnknownVersionInteroperabilityProxy                  Beta       true
UnlockWhileProcessingFIFO                            Beta       true
UserNamespacesHostNetworkSupport                     Alpha      false
UserNamespacesSupport                                GA         true  locked
VolumeAttributesClass                                GA         true  locked
VolumeLimitScaling                                   Alpha      false
WatchCacheInitializationPostStartHook                Beta       true
WatchList                                            Beta       true
WatchListClient                                      Beta       true
WinDSR                                               GA         true  locked
WinOverlay                                           GA         true  locked
WindowsCPUAndMemoryAffinity                          Alpha      false
WindowsGracefulNodeShutdown                          Beta       true
WindowsHostNetwork                                   Deprecated false
WorkloadAwarePreemption                              Alpha      false
WorkloadWithJob                                      Alpha      false
"""


# defaultKubernetesFeatureGateDependencies as the v1.36.2 kubelet enforces it, on the gates a config can turn off (a
# dependency on a locked gate is always met): each gate here enabled alone, every other unlocked gate off, and the
# kubelet's "X is enabled, but depends on features that are disabled: [...]" read back (sorted, as AddDependencies
# sorts them). Kubelets v1.33 and v1.31 have no dependencies (verified: GracefulNodeShutdown false is accepted there).
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "ClusterTrustBundleProjection": ("ClusterTrustBundle",),
    "DRADeviceBindingConditions": ("DRAResourceClaimDeviceStatus",),
    "DRADeviceTaintRules": ("DRADeviceTaints",),
    "DRAResourceClaimGranularStatusAuthorization": ("DRAResourceClaimDeviceStatus",),
    "DRAWorkloadResourceClaims": ("GenericWorkload",),
    "ExtendWebSocketsToKubelet": ("NodeDeclaredFeatures",),
    "GangScheduling": ("GenericWorkload",),
    "GracefulNodeShutdownBasedOnPodPriority": ("GracefulNodeShutdown",),
    "InPlacePodLevelResourcesVerticalScaling": ("NodeDeclaredFeatures", "PodLevelResources"),
    "InPlacePodVerticalScalingInitContainers": ("NodeDeclaredFeatures",),
    "MatchLabelKeysInPodTopologySpreadSelectorMerge": ("MatchLabelKeysInPodTopologySpread",),
    "PodLevelResourceManagers": ("PodLevelResources",),
    "ResourceHealthStatusMessage": ("ResourceHealthStatus",),
    "RestartAllContainersOnContainerExits": ("ContainerRestartRules", "NodeDeclaredFeatures"),
    "StaleControllerConsistencyDaemonSet": ("AtomicFIFO",),
    "StaleControllerConsistencyJob": ("AtomicFIFO",),
    "StaleControllerConsistencyReplicaSet": ("AtomicFIFO",),
    "StaleControllerConsistencyStatefulSet": ("AtomicFIFO",),
    "StorageVersionAPI": ("APIServerIdentity",),
    "TopologyAwareWorkloadScheduling": ("GenericWorkload",),
    "UnknownVersionInteroperabilityProxy": ("APIServerIdentity",),
    "UserNamespacesHostNetworkSupport": ("NodeDeclaredFeatures",),
    "WindowsGracefulNodeShutdown": ("GracefulNodeShutdown",),
    "WorkloadAwarePreemption": ("GangScheduling",),
    "WorkloadWithJob": ("GenericWorkload",),
}
