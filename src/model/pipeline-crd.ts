import { z } from 'zod';
import { NAME_PATTERN } from './pipeline-body.js';
import { PipelineResourceSpec, PipelineResourceStatus, RESOURCE } from './pipeline-resource.js';
import { type Schema, toStructural } from './structural-schema.js';

// The CustomResourceDefinition of `Pipeline`, generated from the zod schemas: the chart ships it as
// charts/svc/files/pipeline-crd.yaml (`npm run chart:crd` writes it with scripts/crd-yaml.ts; a test
// fails when the file and the schemas drift apart).

export const CRD_FILE = 'charts/svc/files/pipeline-crd.yaml';

const schemaOf = (type: z.ZodType): Schema =>
  toStructural(z.toJSONSchema(type, { io: 'input', unrepresentable: 'any' }) as Schema);

/** The record's name is the resource's: a CEL rule holds it to the pipeline-name rules PUT applies. */
const NAME_RULE = {
  rule: `self.metadata.name.size() <= 63 && self.metadata.name.matches('${NAME_PATTERN.source}')`,
  message: `metadata.name is the pipeline's name: at most 63 characters, matching ${NAME_PATTERN.source}`,
};

export function pipelineCrd(): Schema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${RESOURCE.plural}.${RESOURCE.group}`,
      // Uninstalling the chart must not delete every Pipeline (and with them the pipelines).
      annotations: { 'helm.sh/resource-policy': 'keep' },
    },
    spec: {
      group: RESOURCE.group,
      scope: 'Namespaced',
      names: {
        kind: RESOURCE.kind,
        listKind: `${RESOURCE.kind}List`,
        plural: RESOURCE.plural,
        singular: RESOURCE.singular,
        categories: ['svc'],
      },
      versions: [
        {
          name: RESOURCE.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Status', type: 'string', jsonPath: '.status.deployment_status' },
            { name: 'Program', type: 'string', jsonPath: '.status.program_status' },
            { name: 'Desired', type: 'string', jsonPath: '.spec.desired_state', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              'x-kubernetes-validations': [NAME_RULE],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: schemaOf(PipelineResourceSpec),
                status: schemaOf(PipelineResourceStatus),
              },
            },
          },
        },
      ],
    },
  };
}
