import { sql, PostgreSQL } from '@codemirror/lang-sql';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { type Text } from '@codemirror/state';
import { EditorView, basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';
import type { SqlCompilerMessage } from '../api/types.ts';

/** A compiler message's 1-based line and column span → document offsets (clamped to the text). */
export function diagnosticOf(doc: Text, m: SqlCompilerMessage): Diagnostic {
  const pos = (line: number, column: number) => {
    const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
    return Math.min(l.from + Math.max(column - 1, 0), l.to);
  };
  const from = pos(m.start_line_number, m.start_column);
  // The end column is inclusive; an empty span still marks one character.
  const to = Math.max(pos(m.end_line_number, m.end_column + 1), Math.min(from + 1, doc.length));
  return {
    from,
    to,
    severity: m.warning ? 'warning' : 'error',
    source: m.error_type,
    message: m.message,
  };
}

interface Props {
  value: string;
  onChange: (value: string) => void;
  /** The compiler's messages for the text it compiled (marked while the text is unchanged). */
  messages?: readonly SqlCompilerMessage[];
  readOnly?: boolean;
  minHeight?: string;
  label: string;
}

/** CodeMirror 6 with SQL highlighting; the compiler's positions marked in place as lint diagnostics. */
export function SqlEditor({ value, onChange, messages = [], readOnly = false, minHeight = '16rem', label }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(undefined);
  const latest = useRef({ onChange });
  latest.current = { onChange };

  useEffect(() => {
    if (!host.current) return;
    const v = new EditorView({
      parent: host.current,
      doc: value,
      extensions: [
        basicSetup,
        sql({ dialect: PostgreSQL }),
        lintGutter(),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) latest.current.onChange(u.state.doc.toString());
        }),
        EditorView.editable.of(!readOnly),
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.theme({ '&': { minHeight }, '.cm-scroller': { minHeight } }),
      ],
    });
    view.current = v;
    return () => v.destroy();
    // The editor is made once; value and messages flow in through the effects below.
  }, []);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  // The compiler's messages are pushed as they come (no lint source runs in the browser); while the
  // text is unchanged they sit where the compiler put them.
  const key = JSON.stringify(messages);
  useEffect(() => {
    const v = view.current;
    if (v)
      v.dispatch(
        setDiagnostics(
          v.state,
          messages.map((m) => diagnosticOf(v.state.doc, m)),
        ),
      );
    // Keyed on the messages' content: a new array with the same messages changes nothing.
  }, [key]);

  return <div className="sql-editor" ref={host} />;
}
