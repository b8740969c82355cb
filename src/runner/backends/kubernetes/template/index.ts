// The pure half of the Kubernetes backend: pipeline template → StatefulSet, Service and ConfigMap.
export { isTemplateError, templateError, type TemplateSource } from './errors.js';
export { isSafeValue, PLACEHOLDER_NAMES, type PlaceholderValues, substitute } from './placeholders.js';
export { renderTemplate, type TemplateText } from './render.js';
export { completeStatefulSet, type CompletionInput, type CompletionSource, STORAGE_CLAIM } from './complete.js';
export { AUTH_TOKEN_VAR, type ResourcesConfig, LOG_JSON_VAR } from './container.js';
export { CONFIG_KEY, configMapFor, type Owner, PIPELINE_PORT, secretFor, serviceFor } from './companions.js';
export * from './labels.js';
