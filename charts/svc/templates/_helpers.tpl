{{/* Names, labels and the pieces every component shares. */}}

{{- define "svc.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The pipeline template ConfigMap: <release>-pipeline-template, as the runner's docs name it. */}}
{{- define "svc.pipelineTemplateConfigmap" -}}
{{- printf "%s-pipeline-template" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "svc.labels" -}}
{{ include "svc.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The control plane image (and default pipeline image): a digest wins over the tag. */}}
{{- define "svc.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "svc.postgresImage" -}}
{{- $i := .Values.postgresql.image -}}
{{- if $i.digest -}}
{{- printf "%s:%s@%s" $i.repository $i.tag $i.digest -}}
{{- else -}}
{{- printf "%s:%s" $i.repository $i.tag -}}
{{- end -}}
{{- end -}}

{{- define "svc.runnerServiceAccount" -}}
{{- printf "%s-runner" (include "svc.fullname" .) -}}
{{- end -}}

{{- define "svc.pipelineServiceAccount" -}}
{{- default (printf "%s-pipeline" (include "svc.fullname" .)) .Values.pipelineServiceAccount.name -}}
{{- end -}}

{{- define "svc.apiKeySecret" -}}
{{- default (printf "%s-api-key" (include "svc.fullname" .)) .Values.auth.existingSecret -}}
{{- end -}}

{{/* Where the runner and pipeline pods fetch compiled programs. */}}
{{- define "svc.compilerUrl" -}}
{{- if .Values.compilerServer.url -}}
{{- .Values.compilerServer.url -}}
{{- else -}}
{{- $svc := ternary "manager" "compiler-server" (eq .Values.controlPlane.mode "combined") -}}
{{- printf "http://%s-%s.%s.svc:%d" (include "svc.fullname" .) $svc .Release.Namespace (int .Values.compilerServer.port) -}}
{{- end -}}
{{- end -}}

{{/*
The runner's RBAC rules: the API calls of src/runner/backends/kubernetes, and nothing more. The one
place to change when the runner needs another verb; the Role (templates/rbac.yaml) renders them.
*/}}
{{- /* Exactly what the Kubernetes runner calls (src/runner/backends/kubernetes/rbac.ts lists the same;
a test compares them). Server-side apply that creates an object is authorized as "create" too. */ -}}
{{- define "svc.runnerRules" -}}
{{ include "svc.pipelineNamespaceRules" . }}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
{{- if .Values.pipelineResources.enabled }}
- apiGroups: ["svc.dev"]
  resources: ["pipelines"]
  verbs: ["list", "watch", "patch"]
- apiGroups: ["svc.dev"]
  resources: ["pipelines/status"]
  verbs: ["patch"]
{{- end }}
{{- end -}}

{{- /* The runner's rules where it keeps Pipelines besides its own namespace (pipelineResources.watchNamespaces:
rbac.ts PIPELINE_RESOURCE_NAMESPACE_RBAC_RULES, compared by a test): the resources, their status, Events. */ -}}
{{- define "svc.pipelineResourceNamespaceRules" -}}
- apiGroups: ["svc.dev"]
  resources: ["pipelines"]
  verbs: ["list", "watch", "patch"]
- apiGroups: ["svc.dev"]
  resources: ["pipelines/status"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
{{- end -}}

{{- /* The runner's rules in a further namespace of kubernetesRunner.allowedNamespaces: no Lease there
(rbac.ts PIPELINE_NAMESPACE_RBAC_RULES, compared by a test). */ -}}
{{- define "svc.pipelineNamespaceRules" -}}
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["list", "watch", "create", "patch", "delete"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["create", "patch", "delete"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "create", "patch", "delete"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
- apiGroups: [""]
  resources: ["pods/log"]
  verbs: ["get"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["list", "watch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "list", "watch"]
{{- end -}}

{{/* Env of every control-plane container: logs, data dir, database. */}}
{{- define "svc.commonEnv" -}}
- name: SVC_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- if .Values.logJson }}
- name: SVC_LOG_JSON
  value: "1"
{{- end }}
- name: SVC_DATA_DIR
  value: /data
{{- if .Values.postgresql.enabled }}
# node-postgres takes the password from PGPASSWORD when the URL has none.
- name: PGPASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "svc.fullname" . }}-postgresql
      key: password
- name: SVC_DATABASE_URL
  value: {{ printf "postgres://svc@%s:%d/svc" (default (printf "%s-postgresql.%s.svc" (include "svc.fullname" .) .Release.Namespace) .Values.postgresql.host) (int .Values.postgresql.port) | quote }}
{{- else }}
- name: SVC_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ default (printf "%s-database" (include "svc.fullname" .)) .Values.externalDatabase.existingSecret }}
      key: {{ .Values.externalDatabase.existingSecretKey }}
{{- end }}
{{- end -}}

{{/* The API's certificate: the https.secretRef Secret, mounted by svc.volumes. */}}
{{- define "svc.tlsEnv" -}}
{{- if .Values.https.secretRef }}
- name: SVC_TLS_CERT
  value: /etc/svc/tls/tls.crt
- name: SVC_TLS_KEY
  value: /etc/svc/tls/tls.key
{{- end }}
{{- end -}}

{{- define "svc.apiKeyEnv" -}}
{{- if .Values.auth.enabled }}
- name: SVC_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "svc.apiKeySecret" . }}
      key: api-key
{{- end }}
{{- end -}}

{{/* Env of the Kubernetes runner (svc runner --backend kubernetes, or the manager in combined mode). */}}
{{- define "svc.runnerEnv" -}}
{{- $r := .Values.kubernetesRunner -}}
- name: SVC_COMPILER_URL
  value: {{ include "svc.compilerUrl" . | quote }}
- name: SVC_NAMESPACE
  value: {{ .Release.Namespace | quote }}
- name: SVC_PIPELINE_TEMPLATE_CONFIGMAP
  value: {{ include "svc.pipelineTemplateConfigmap" . | quote }}
- name: SVC_ALLOW_CUSTOM_PIPELINE_TEMPLATE
  value: {{ $r.allowCustomPipelineTemplate | quote }}
- name: SVC_PIPELINE_EXECUTOR_IMAGE
  value: {{ default (include "svc.image" .) .Values.pipelineExecutorImage | quote }}
{{- with .Values.pipelineStorage.storageClassName }}
- name: SVC_STORAGE_CLASS
  value: {{ . | quote }}
{{- end }}
- name: SVC_DEFAULT_STORAGE_MB
  value: {{ include "svc.defaultStorageMb" . | quote }}
- name: SVC_PIPELINE_POD_DEFAULTS
  value: {{ include "svc.pipelinePodDefaults" . | quote }}
- name: SVC_PIPELINE_SERVICE_ACCOUNT
  value: {{ include "svc.pipelineServiceAccount" . | quote }}
- name: SVC_PROVISIONING_TIMEOUT_SECS
  value: {{ $r.provisioningTimeoutSecs | int | quote }}
- name: SVC_UNSCHEDULABLE_GRACE_SECS
  value: {{ $r.unschedulableGraceSecs | int | quote }}
- name: SVC_POD_RESTART_LIMIT
  value: {{ $r.podRestarts.limit | int | quote }}
- name: SVC_POD_RESTART_WINDOW_SECS
  value: {{ $r.podRestarts.windowSecs | int | quote }}
- name: SVC_POD_RESCHEDULE_GRACE_SECS
  value: {{ $r.podRestarts.rescheduleGraceSecs | int | quote }}
- name: SVC_PIPELINE_ADDRESS
  value: {{ $r.pipelineAddress | quote }}
- name: SVC_LEADER_ELECT
  value: {{ $r.leaderElection.enabled | quote }}
- name: SVC_PIPELINE_RESOURCES
  value: {{ .Values.pipelineResources.enabled | quote }}
{{- with .Values.pipelineResources.watchNamespaces }}
- name: SVC_PIPELINE_RESOURCES_NAMESPACES
  value: {{ join "," . | quote }}
{{- end }}
- name: SVC_LEADER_ELECTION_ID
  value: {{ default (printf "%s-runner" (include "svc.fullname" .)) $r.leaderElection.leaseName | quote }}
{{- if $r.kubeconfigSecret.name }}
- name: SVC_KUBECONFIG
  value: /etc/svc/kubeconfig/{{ $r.kubeconfigSecret.key }}
{{- end }}
{{- end -}}

{{/* Volumes of a control-plane pod: a writable /data and /tmp (read-only root), the runner's kubeconfig. */}}
{{- define "svc.volumes" -}}
- name: data
  emptyDir: {}
- name: tmp
  emptyDir: {}
{{- if and .runner .root.Values.kubernetesRunner.kubeconfigSecret.name }}
- name: kubeconfig
  secret:
    secretName: {{ .root.Values.kubernetesRunner.kubeconfigSecret.name }}
{{- end }}
{{- if .tls }}
- name: tls
  secret:
    secretName: {{ .root.Values.https.secretRef }}
{{- end }}
{{- end -}}

{{- define "svc.volumeMounts" -}}
- name: data
  mountPath: /data
- name: tmp
  mountPath: /tmp
{{- if and .runner .root.Values.kubernetesRunner.kubeconfigSecret.name }}
- name: kubeconfig
  mountPath: /etc/svc/kubeconfig
  readOnly: true
{{- end }}
{{- if .tls }}
- name: tls
  mountPath: /etc/svc/tls
  readOnly: true
{{- end }}
{{- end -}}

{{/* PVC size of pipelines that set none: pipeline.storageMb.default, else pipelineStorage.defaultMegabytes. */}}
{{- define "svc.defaultStorageMb" -}}
{{- $p := .Values.pipeline -}}
{{- $mb := int (ternary .Values.pipelineStorage.defaultMegabytes $p.storageMb.default (kindIs "invalid" $p.storageMb.default)) -}}
{{- if and (not (kindIs "invalid" $p.storageMb.max)) (gt $mb (int $p.storageMb.max)) -}}
{{- fail (printf "pipeline.storageMb.default (%d) is more than pipeline.storageMb.max (%d)" $mb (int $p.storageMb.max)) -}}
{{- end -}}
{{- $mb -}}
{{- end -}}

{{/* What the runner adds to every pipeline pod (SVC_PIPELINE_POD_DEFAULTS, JSON). */}}
{{- define "svc.pipelinePodDefaults" -}}
{{- $p := .Values.pipeline -}}
{{- dict "nodeSelector" $p.nodeSelector "tolerations" $p.tolerations "affinity" $p.affinity "labels" $p.labels "annotations" $p.annotations "priorityClassName" $p.priorityClassName "env" $p.env "resources" $p.resources "imagePullSecrets" .Values.imagePullSecrets | toJson -}}
{{- end -}}

{{/* The operator's bounds on a start (runtime_config.resources), checked by the API. */}}
{{- define "svc.boundsEnv" -}}
{{- $p := .Values.pipeline -}}
# resources.namespace: the release's namespace and those the runner has a Role in (rbac.yaml).
- name: SVC_PIPELINE_NAMESPACES
  value: {{ join "," (prepend .Values.kubernetesRunner.allowedNamespaces .Release.Namespace | uniq) | quote }}
{{- with $p.memoryMb.min }}
- name: SVC_PIPELINE_MEMORY_MB_MIN
  value: {{ . | int | quote }}
{{- end }}
{{- with $p.memoryMb.max }}
- name: SVC_PIPELINE_MEMORY_MB_MAX
  value: {{ . | int | quote }}
{{- end }}
{{- with $p.storageMb.max }}
- name: SVC_PIPELINE_STORAGE_MB_MAX
  value: {{ . | int | quote }}
{{- end }}
# resources.service_account_name: the chart's pipeline account and those listed; never the runner's,
# whose token may change every pipeline of the namespace.
{{- $accounts := prepend $p.serviceAccounts (include "svc.pipelineServiceAccount" .) | uniq }}
{{- if has (include "svc.runnerServiceAccount" .) $accounts }}
{{- fail (printf "pipeline.serviceAccounts must not name the runner's service account (%s)" (include "svc.runnerServiceAccount" .)) }}
{{- end }}
- name: SVC_PIPELINE_SERVICE_ACCOUNTS
  value: {{ join "," $accounts | quote }}
# runtime_config.init_containers: only these images ("none": no init containers at all).
- name: SVC_PIPELINE_INIT_CONTAINER_IMAGES
  value: {{ ternary (join "," $p.initContainerImages) "none" (gt (len $p.initContainerImages) 0) | quote }}
{{- with $p.storageClasses }}
{{- if and $.Values.pipelineStorage.storageClassName (not (has $.Values.pipelineStorage.storageClassName .)) }}
{{- fail (printf "pipelineStorage.storageClassName (%s) is not in pipeline.storageClasses" $.Values.pipelineStorage.storageClassName) }}
{{- end }}
- name: SVC_PIPELINE_STORAGE_CLASSES
  value: {{ join "," . | quote }}
{{- end }}
{{- end -}}
