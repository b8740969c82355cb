import { descriptions, newerSpellings, schema } from 'virtual:runtime-config-schema';
import { useState } from 'react';
import { controlOf, getIn, type JsonSchema, setIn } from '../lib/json-schema.ts';

type Json = Record<string, unknown>;

interface FieldProps {
  path: string[];
  member: JsonSchema;
  value: Json;
  onChange: (next: Json) => void;
}

/** A member edited as JSON text (arrays, maps, unions): applied once it parses. */
function JsonField({ path, value, onChange }: Omit<FieldProps, 'member'>) {
  const current = getIn(value, path);
  const [text, setText] = useState(current === undefined ? '' : JSON.stringify(current));
  const [bad, setBad] = useState(false);
  return (
    <input
      className={bad ? 'invalid' : ''}
      value={text}
      placeholder="unset (JSON)"
      onChange={(e) => {
        setText(e.target.value);
        if (e.target.value.trim() === '') return (setBad(false), onChange(setIn(value, path, undefined)));
        try {
          onChange(setIn(value, path, JSON.parse(e.target.value)));
          setBad(false);
        } catch {
          setBad(true);
        }
      }}
    />
  );
}

function Input({ path, member, value, onChange }: FieldProps) {
  const control = controlOf(member);
  const current = getIn(value, path);
  const set = (next: unknown) => onChange(setIn(value, path, next));
  const id = `rc-${path.join('.')}`;
  switch (control.kind) {
    case 'boolean':
      return (
        <select
          id={id}
          value={current === undefined ? '' : String(current)}
          onChange={(e) => set(e.target.value === '' ? undefined : e.target.value === 'true')}
        >
          <option value="">unset</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      );
    case 'enum':
      return (
        <select
          id={id}
          value={typeof current === 'string' ? current : ''}
          onChange={(e) => set(e.target.value || undefined)}
        >
          <option value="">unset</option>
          {control.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
    case 'number':
      return (
        <input
          id={id}
          type="number"
          step={control.integer ? 1 : 'any'}
          min={control.min}
          max={control.max}
          placeholder="unset"
          value={typeof current === 'number' ? current : ''}
          onChange={(e) => set(e.target.value === '' ? undefined : Number(e.target.value))}
        />
      );
    case 'string':
      return (
        <input
          id={id}
          maxLength={control.maxLength}
          placeholder="unset"
          value={typeof current === 'string' ? current : ''}
          onChange={(e) => set(e.target.value === '' ? undefined : e.target.value)}
        />
      );
    case 'object':
      return <Members path={path} properties={control.properties} value={value} onChange={onChange} />;
    case 'json':
      return <JsonField path={path} value={value} onChange={onChange} />;
  }
}

function Members({
  path,
  properties,
  value,
  onChange,
}: Omit<FieldProps, 'member'> & { properties: Record<string, JsonSchema> }) {
  const names = Object.keys(properties).filter((n) => !newerSpellings.includes(n));
  return (
    <div className={path.length > 0 ? 'members nested' : 'members'}>
      {names.map((name) => {
        const member = properties[name] ?? {};
        const full = [...path, name];
        const nested = controlOf(member).kind === 'object';
        return (
          <div className={nested ? 'field group' : 'field'} key={name}>
            <label htmlFor={`rc-${full.join('.')}`} title={descriptions[full.join('.')]}>
              {name}
            </label>
            <Input path={full} member={member} value={value} onChange={onChange} />
            {!nested && descriptions[full.join('.')] && <small>{descriptions[full.join('.')]}</small>}
          </div>
        );
      })}
    </div>
  );
}

/** runtime_config as a form, one control per member of the API's own schema. */
export function ConfigForm({ value, onChange }: { value: Json; onChange: (next: Json) => void }) {
  return <Members path={[]} properties={schema.properties ?? {}} value={value} onChange={onChange} />;
}
