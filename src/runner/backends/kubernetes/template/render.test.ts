import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../../model/errors.js';
import { renderTemplate } from './render.js';
import { MINIMAL, SOURCE, VALUES } from './template.fixture.js';

function renderError(text: string, values = VALUES): SvcError {
  try {
    renderTemplate({ ...SOURCE, text }, values);
  } catch (e) {
    if (e instanceof SvcError) return e;
    throw e;
  }
  throw new Error('expected a TemplateError');
}

const HEAD = 'apiVersion: apps/v1\nkind: StatefulSet\n';
const POD = 'spec:\n  template:\n    spec:\n      containers:\n        - name: pipeline\n          image: x\n';

describe('renderTemplate', () => {
  it('substitutes and parses a StatefulSet', () => {
    const sts = renderTemplate({ ...SOURCE, text: MINIMAL }, VALUES);
    expect(sts.kind).toBe('StatefulSet');
    expect(sts.metadata?.name).toBe(VALUES.id);
    const c = sts.spec?.template.spec?.containers[0];
    expect(c?.image).toBe(VALUES.pipeline_executor_image);
    expect(c?.args).toEqual(['pipeline', '--initial=running']);
    // An empty {storage_class_name} leaves `storageClassName:`, a null.
    expect(sts.spec?.volumeClaimTemplates?.[0]?.spec?.storageClassName).toBeNull();
  });

  it('leaves unknown placeholders as they are', () => {
    const sts = renderTemplate({ ...SOURCE, text: `${HEAD}metadata:\n  name: '{other}'\n${POD}` }, VALUES);
    expect(sts.metadata?.name).toBe('{other}');
  });

  it('ignores empty documents around the one StatefulSet', () => {
    const sts = renderTemplate({ ...SOURCE, text: `---\n${HEAD}${POD}---\n` }, VALUES);
    expect(sts.kind).toBe('StatefulSet');
  });

  it('copies aliased nodes, so completing one cannot change another', () => {
    const text = `${HEAD}${POD}          env: &e [{name: A, value: a}]\n        - name: side\n          env: *e\n`;
    const sts = renderTemplate({ ...SOURCE, text }, VALUES);
    const [a, b] = sts.spec?.template.spec?.containers ?? [];
    expect(a?.env).toEqual(b?.env);
    expect(a?.env).not.toBe(b?.env);
  });

  it.each([
    ['bad YAML', `${HEAD}metadata: a: b\n${POD}`, /invalid YAML/, 3],
    // An unclosed flow list is found at the end of the text: the line after the last newline.
    ['an unclosed list', `${HEAD}spec: [\n  x: y\n`, /invalid YAML/, 5],
    ['a tab-indented line', `${HEAD}spec:\n\ttemplate: {}\n`, /invalid YAML/, 4],
    ['an undefined alias', `${HEAD}metadata: *nothing\n`, /invalid YAML/, 3],
    ['a duplicate key', `${HEAD}kind: Pod\n`, /invalid YAML/, 3],
    ['an unknown tag', `${HEAD}metadata: !!js/function x\n`, /invalid YAML/, 3],
    ['nothing', '', /found 0/, undefined],
    ['only comments', '# nothing here\n', /found 0/, undefined],
    ['two documents', `${HEAD}${POD}---\n${HEAD}${POD}`, /found 2/, undefined],
    ['a Deployment', `apiVersion: apps/v1\nkind: Deployment\n${POD}`, /kind "Deployment"/, undefined],
    ['a Pod', `apiVersion: v1\nkind: Pod\n${POD}`, /apiVersion "v1"/, undefined],
    ['a List', 'apiVersion: v1\nkind: List\nitems: []\n', /kind "List"/, undefined],
    ['an old apiVersion', `apiVersion: apps/v1beta1\nkind: StatefulSet\n${POD}`, /apps\/v1beta1/, undefined],
    ['a list document', '- a\n- b\n', /not a mapping/, undefined],
    ['a scalar document', 'hello\n', /not a mapping/, undefined],
    ['no spec', HEAD, /spec.template.spec/, undefined],
    ['no pod spec', `${HEAD}spec:\n  template: {}\n`, /spec.template.spec/, undefined],
    ['no containers', `${HEAD}spec:\n  template:\n    spec: {}\n`, /containers must be a non-empty list/, undefined],
    ['empty containers', `${HEAD}spec:\n  template:\n    spec:\n      containers: []\n`, /non-empty/, undefined],
    ['a scalar container', `${HEAD}spec:\n  template:\n    spec:\n      containers: [x]\n`, /\[0\]/, undefined],
    ['a scalar metadata', `${HEAD}metadata: x\n${POD}`, /metadata/, undefined],
  ])('refuses %s', (_what, text, reason, line) => {
    const err = renderError(text);
    expect(err.errorCode).toBe('TemplateError');
    expect(err.status).toBe(400);
    expect(err.message).toContain(`'${SOURCE.configMap}'`);
    expect(err.message).toContain(`'${SOURCE.key}'`);
    expect(err.message).toMatch(reason);
    expect(err.details).toMatchObject({ config_map: SOURCE.configMap, key: SOURCE.key });
    expect(err.details?.reason).toMatch(reason);
    expect(err.details?.line).toBe(line);
    if (line !== undefined) expect(err.message).toContain(`line ${line}`);
  });

  it('refuses a document that aliases expand past the size limit (YAML bomb)', () => {
    const levels = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 8; i++)
      levels.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const err = renderError(`${HEAD}${POD}bomb:\n${levels.map((l) => `  ${l}`).join('\n')}\n`);
    expect(err.errorCode).toBe('TemplateError');
    expect(err.message).toMatch(/too large/);
  });

  it('refuses more than 100 aliases', () => {
    const aliases = Array.from({ length: 101 }, (_, i) => `  a${i}: *x`).join('\n');
    const err = renderError(`${HEAD}${POD}anchors:\n  x: &x 1\n${aliases}\n`);
    expect(err.errorCode).toBe('TemplateError');
    expect(err.message).toContain('invalid YAML');
  });

  it('refuses an injecting value before parsing', () => {
    const err = renderError(MINIMAL, { ...VALUES, deployment_initial: 'x\nkind: Pod' });
    expect(err.errorCode).toBe('TemplateError');
    expect(err.message).toContain('{deployment_initial}');
  });
});
