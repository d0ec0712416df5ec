# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's feature gates and how a config's featureGates resolve (k8s.io/component-base/featuregate).

FEATURE_GATES holds, per kubelet minor version, every gate the kubelet registers with its stage, default and lock at
that version (the latest versioned spec whose version is <= the kubelet's). resolve_feature_gates(featureGates) does
what featuregate SetFromMap does: an explicit value wins, AllAlpha / AllBeta set the unset gates of their stage, a
locked gate set to the other value and an unknown gate are errors, and (from v1.35) a gate enabled while a gate it
depends on is disabled is an error. The kubelet runs SetFromMap while it defaults the config file and panics on any
error (v1.31 reports it as a start error instead). Values that are not booleans fail the config's decoding first
(_kubelet_fields); here they count as unset.

Sources: FEATURE_GATES_SOURCE (kube_features.go and feature_gate.go; names, stages, defaults and locks as the released
kubelets v1.36.2, v1.33.13 and v1.31.14 report them); docs/kubelet-facts.md, feature gates.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

FEATURE_GATES_SOURCE = (
    "kubernetes/kubernetes pkg/features/kube_features.go (defaultVersionedKubernetesFeatureGates and "
    "defaultKubernetesFeatureGateDependencies, https://github.com/kubernetes/kubernetes/blob/v1.36.2/pkg/features/kube_features.go; "
    "the v1.33 layout compared at b0b89d3bd251db932ed5a7bef66039fb88acab64), with the gates it takes from k8s.io/apiserver, "
    "apiextensions-apiserver, controller-manager, component-base zpages and logs, and client-go; "
    "staging/src/k8s.io/component-base/featuregate/feature_gate.go at 00c2fffd238f216a4f8820f27fa47c3a6a86c1be (SetFromMap, "
    "unsafeSetFromMap and their texts). Each table holds the gates the released kubelet of that version knows (v1.36.2, "
    "v1.33.13, v1.31.14): alpha and beta gates with their defaults as its `kubelet --help` lists them, GA and deprecated "
    "gates and every lock as it reports them when a config sets the gate (its 'setting GA feature gate' warning and its "
    "'feature is locked to' error). OpenShift's own gates (RouteExternalCertificate, MinimumKubeletVersion, "
    "StoragePerformantSecurityPolicy) are left out: upstream kubelets do not know them."
)

DEFAULT_KUBELET_VERSION = "1.36"
ALPHA, BETA, GA, DEPRECATED = "Alpha", "Beta", "GA", "Deprecated"
ALL_ALPHA, ALL_BETA = "AllAlpha", "AllBeta"


class GateSpec(NamedTuple):
    """A gate's state at one kubelet version: stage, default, and whether it is locked to that default."""

    stage: str
    default: bool
    locked: bool


# name, stage, default, "locked" when LockToDefault.
_V1_36 = """
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

_V1_33 = """
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

_V1_31 = """
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


def _parse_table(text: str) -> dict[str, GateSpec]:
    table = {}
    for line in text.strip().splitlines():
        name, stage, default, *lock = line.split()
        table[name] = GateSpec(stage, default == "true", lock == ["locked"])
    return table


FEATURE_GATES: dict[str, dict[str, GateSpec]] = {
    "1.36": _parse_table(_V1_36),
    "1.33": _parse_table(_V1_33),
    "1.31": _parse_table(_V1_31),
}

# defaultKubernetesFeatureGateDependencies as the v1.36.2 kubelet enforces it, on the gates a config can turn off (a
# dependency on a locked gate is always met): each gate here enabled alone, every other unlocked gate off, and the
# kubelet's "X is enabled, but depends on features that are disabled: [...]" read back (sorted, as AddDependencies
# sorts them). Kubelets v1.33 and v1.31 have no dependencies (verified: GracefulNodeShutdown false is accepted there).
GATE_DEPENDENCIES_V1_36: dict[str, tuple[str, ...]] = {
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

_DEPENDENCIES = {"1.36": GATE_DEPENDENCIES_V1_36}


def kubelet_minor(kubelet_version: str | None) -> str | None:
    """ "1.33", "v1.33.13" or "1.33.13+rke2r1" -> "1.33"; None -> the default (1.36). None when not a version."""
    if kubelet_version is None:
        return DEFAULT_KUBELET_VERSION
    parts = str(kubelet_version).strip().lstrip("v").split(".")
    if len(parts) < 2 or not parts[0].isdigit():
        return None
    minor = "".join(ch for ch in parts[1] if ch.isdigit()) if parts[1][:1].isdigit() else ""
    return f"{parts[0]}.{minor}" if minor else None


def gate_table(kubelet_version: str | None = None) -> dict[str, GateSpec] | None:
    """The gates of that kubelet version, or None when the collection has no table for it."""
    return FEATURE_GATES.get(kubelet_minor(kubelet_version) or "")


@dataclass
class GateResolution:
    """The gates a config runs with, and what the kubelet would say about its featureGates."""

    table: Mapping[str, GateSpec] = field(default_factory=dict)
    explicit: Mapping[str, bool] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def enabled(self, name: str) -> bool | None:
        """Enabled(name) after SetFromMap; None for a gate this kubelet version does not know."""
        return _resolved_value(self.table, self.explicit, name) if name in self.table else None


def _explicit_gates(gates: object) -> dict[str, bool]:
    """The featureGates entries the kubelet decodes; anything else is the decoding's problem (_kubelet_fields)."""
    if not isinstance(gates, Mapping):
        return {}
    return {str(name): value for name, value in gates.items() if isinstance(value, bool)}


def _resolved_value(table: Mapping[str, GateSpec], explicit: Mapping[str, bool], name: str) -> bool:
    spec = table[name]
    if spec.locked:
        return spec.default
    if name in explicit:
        return explicit[name]
    special = {ALPHA: ALL_ALPHA, BETA: ALL_BETA}.get(spec.stage)
    if special is not None and special in explicit:
        return explicit[special]
    return spec.default


def gate_enabled(gates: object, name: str, kubelet_version: str | None = None) -> bool:
    """localFeatureGate.Enabled(name) after SetFromMap(featureGates); False for a gate that version does not know."""
    table = gate_table(kubelet_version)
    if table is None or name not in table:
        return False
    return _resolved_value(table, _explicit_gates(gates), name)


def _unknown_gate(name: str, table: Mapping[str, GateSpec], minor: str) -> str:
    guess = difflib.get_close_matches(name, sorted(table), n=1, cutoff=0.8)
    hint = f'; did you mean "{guess[0]}"?' if guess else ""
    return f"featureGates.{name}: unrecognized feature gate: {name} (not a gate of kubelet v{minor}){hint}"


def resolve_feature_gates(gates: object, kubelet_version: str | None = None) -> GateResolution:
    """featuregate SetFromMap(featureGates) on the kubelet's gates of that version: the gates it runs with and its errors.

    Errors carry the kubelet's text (feature_gate.go unsafeSetFromMap): "unrecognized feature gate: X",
    "cannot set feature gate X to false, feature is locked to true", "X is enabled, but depends on features that are
    disabled: [Y]". For a version without a table, or a gate missing from an older version's table, a warning says
    the collection cannot check it.
    """
    minor = kubelet_minor(kubelet_version)
    table = FEATURE_GATES.get(minor or "")
    explicit = _explicit_gates(gates)
    if table is None:
        if explicit:
            return GateResolution(
                warnings=[
                    "featureGates: the collection has no feature-gate table for kubelet %s (it knows %s); these gates are not checked"
                    % (kubelet_version, ", ".join(sorted(FEATURE_GATES)))
                ]
            )
        return GateResolution()
    resolution = GateResolution(table, explicit)
    for name, value in explicit.items():
        spec = table.get(name)
        if spec is None:
            if minor == DEFAULT_KUBELET_VERSION:
                resolution.errors.append(_unknown_gate(name, table, minor))
            else:
                resolution.warnings.append(
                    "featureGates.%s: not in the collection's table of kubelet v%s gates, so it cannot be checked for that version; "
                    "a kubelet refuses a gate it does not know (unrecognized feature gate: %s)" % (name, minor, name)
                )
        elif spec.locked and value != spec.default:
            resolution.errors.append(
                "featureGates.%s: cannot set feature gate %s to %s, feature is locked to %s; the kubelet stops at start (v%s %s)"
                % (name, name, _go_bool(value), _go_bool(spec.default), minor, "panics while defaulting its config" if minor != "1.31" else "refuses it")
            )
    if resolution.errors:
        # unsafeSetFromMap checks dependencies only once every gate was set.
        return resolution
    for feature, dependencies in _DEPENDENCIES.get(minor or "", {}).items():
        if not resolution.enabled(feature):
            continue
        disabled = [dependency for dependency in dependencies if not resolution.enabled(dependency)]
        if disabled:
            resolution.errors.append("featureGates: %s is enabled, but depends on features that are disabled: [%s]" % (feature, " ".join(disabled)))
    return resolution


def _go_bool(value: bool) -> str:
    return "true" if value else "false"


def feature_gate_problems(config: Mapping, kubelet_version: str | None = None) -> list[str]:
    """The errors the kubelet reports for the config's featureGates (docs/troubleshooting.md, feature gates)."""
    return resolve_feature_gates(config.get("featureGates"), kubelet_version).errors


def feature_gate_warnings(config: Mapping, kubelet_version: str | None = None) -> list[str]:
    """The featureGates the collection cannot check for that kubelet version."""
    return resolve_feature_gates(config.get("featureGates"), kubelet_version).warnings
