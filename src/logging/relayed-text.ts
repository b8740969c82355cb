import type { DestinationStream } from 'pino';

// Text logs (no SVC_LOG_JSON): a runner relays each pipeline log event under `fields.line` (seed
// 6.3 rule 5). pino-pretty would print that event as one escaped string member, its own timestamp,
// level and indented fields packed into `line: "[…]\n    port: …"`. In text mode the event is
// printed as the lines the pipeline wrote, each prefixed with the pipeline's name; its own
// `pipeline-name:` line says nothing the prefix does not. JSON logs are untouched.

const NAME_LINE = /^\s+pipeline-name: /;

/** A relayed event as text: each of its lines behind `name | `. */
export function relayedText(name: string, line: string): string {
  return line
    .split('\n')
    .filter((l) => !NAME_LINE.test(l))
    .map((l) => `${name} | ${l}\n`)
    .join('');
}

/**
 * The text logger's stream: records with a string `line` are written as relayedText, every other
 * record goes through `pretty`. The record is only parsed when it carries a `line` member.
 */
export function textDestination(pretty: DestinationStream, destination: DestinationStream): DestinationStream {
  return {
    write(record: string) {
      if (record.includes('"line":')) {
        const parsed = JSON.parse(record) as { line?: unknown; 'pipeline-name'?: unknown };
        if (typeof parsed.line === 'string') {
          destination.write(relayedText(String(parsed['pipeline-name'] ?? 'N/A'), parsed.line));
          return;
        }
      }
      pretty.write(record);
    },
  };
}
