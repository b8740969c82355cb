{{/*
One control-plane Deployment. Called with a dict:
  root       the chart context
  component  api-server | compiler-server | kubernetes-runner | manager
  args       the svc subcommand and flags (a list)
  port       the container port probed on /healthz and /readyz
  replicas, resources
  env        extra env (rendered YAML list, may be empty)
  runner     true when the pod runs the Kubernetes runner (its ServiceAccount and kubeconfig)
  tls        true when the pod serves the API on `port` (HTTPS with https.secretRef)
*/}}
{{- define "svc.deployment" -}}
{{- $root := .root -}}
{{- $cp := $root.Values.controlPlane -}}
{{- $https := and .tls $root.Values.https.secretRef -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "svc.fullname" $root }}-{{ .component }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "svc.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  replicas: {{ .replicas }}
  selector:
    matchLabels:
      {{- include "svc.selectorLabels" $root | nindent 6 }}
      app.kubernetes.io/component: {{ .component }}
  template:
    metadata:
      labels:
        {{- include "svc.labels" $root | nindent 8 }}
        app.kubernetes.io/component: {{ .component }}
      {{- with $cp.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      {{- if .runner }}
      serviceAccountName: {{ include "svc.runnerServiceAccount" $root }}
      automountServiceAccountToken: true
      {{- else }}
      automountServiceAccountToken: false
      {{- end }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $cp.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .component }}
          image: {{ include "svc.image" $root | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args:
            {{- toYaml .args | nindent 12 }}
          env:
            {{- include "svc.commonEnv" $root | nindent 12 }}
            {{- with .env }}
            {{- . | nindent 12 }}
            {{- end }}
          ports:
            - name: http
              containerPort: {{ .port }}
              protocol: TCP
            {{- with .extraPorts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
              {{- if $https }}
              scheme: HTTPS
              {{- end }}
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 3
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
              {{- if $https }}
              scheme: HTTPS
              {{- end }}
            initialDelaySeconds: 10
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 6
          resources:
            {{- toYaml .resources | nindent 12 }}
          securityContext:
            {{- toYaml $cp.securityContext | nindent 12 }}
          volumeMounts:
            {{- include "svc.volumeMounts" (dict "root" $root "runner" .runner "tls" $https) | nindent 12 }}
      volumes:
        {{- include "svc.volumes" (dict "root" $root "runner" .runner "tls" $https) | nindent 8 }}
      {{- with $cp.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $cp.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $cp.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}

{{/* A ClusterIP Service in front of one component. dict: root, component, ports (list of {name, port}). */}}
{{- define "svc.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "svc.fullname" .root }}-{{ .component }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "svc.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  type: {{ .type | default "ClusterIP" }}
  selector:
    {{- include "svc.selectorLabels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
  ports:
    {{- range .ports }}
    - name: {{ .name }}
      port: {{ .port }}
      targetPort: {{ .targetPort }}
      protocol: TCP
    {{- end }}
{{- end -}}
