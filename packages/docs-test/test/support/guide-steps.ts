// The steps of a guide, read from its fenced code blocks in order. The marking convention (it renders as plain
// code blocks on GitHub and on the docs site, with the file name or terminal visible to the reader):
//   ```ts  whose first line is `// <path>`                 a file of the application, written at that point
//   ```json right after a line "`<path>`:"                  likewise
//   ```sh                                                   commands, run in order, each line one command
//                                                           (a line ending in `\` continues), `# …` comments
//   ```sh whose first line is `# terminal 1`                the one command in it runs in the background
//   ```sh whose first line is `# terminal 1: press Ctrl-C`  SIGINT to the background command; it must exit
//   ```text right after a ```sh block                      what its last command prints (the background
//                                                           command: prints before it is ready)
// Any other block (```js, ```diff, an unmarked ```ts…) is illustration and is not run.

/** A file the guide shows. */
export interface FileStep {
  readonly kind: 'file';
  readonly path: string;
  readonly content: string;
  readonly line: number;
}

/** A block of shell commands. */
export interface ShellStep {
  readonly kind: 'sh';
  /** One entry per command, continuation lines joined, comments removed. */
  readonly commands: string[];
  readonly background: boolean;
  readonly interrupt: boolean;
  /** What the block's last command prints, when the guide shows it. */
  expected: string | undefined;
  readonly line: number;
}

export type GuideStep = FileStep | ShellStep;

/** Removes a trailing ` # comment` (outside quotes) from a command line. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line.trimEnd();
}

/** Reads the steps of a guide (see the convention above). Throws on a malformed block, naming its line. */
export function guideSteps(markdown: string, source: string): GuideStep[] {
  const lines = markdown.split('\n');
  const steps: GuideStep[] = [];
  let previous: GuideStep | undefined;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)$/.exec(lines[i] as string);
    if (fence === null) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${source}:${i + 1}: unclosed code block`);
    const body = lines.slice(i + 1, end);
    const lang = fence[1];
    const at = i + 1;
    let step: GuideStep | undefined;
    if (lang === 'ts') {
      const path = /^\/\/ ([\w./-]+\.ts)$/.exec(body[0] ?? '')?.[1];
      if (path !== undefined) step = { kind: 'file', path, content: `${body.join('\n')}\n`, line: at };
    } else if (lang === 'json') {
      let before = i - 1;
      while (before >= 0 && (lines[before] as string).trim() === '') before--;
      const path = /^`([\w./-]+\.json)`:$/.exec(lines[before] ?? '')?.[1];
      if (path !== undefined) step = { kind: 'file', path, content: `${body.join('\n')}\n`, line: at };
    } else if (lang === 'sh') {
      const terminal = /^# terminal 1(:.*)?$/.exec(body[0] ?? '');
      const commands: string[] = [];
      let pending = '';
      for (const raw of terminal === null ? body : body.slice(1)) {
        if (raw.endsWith('\\')) {
          pending += `${raw.slice(0, -1).trimEnd()} `;
          continue;
        }
        const command = stripComment(`${pending}${raw.trimStart()}`).trim();
        pending = '';
        if (command !== '') commands.push(command);
      }
      const interrupt = terminal !== null && /Ctrl-C/.test(terminal[1] ?? '');
      if (interrupt && commands.length > 0) throw new Error(`${source}:${at}: a Ctrl-C block runs no command`);
      if (terminal !== null && !interrupt && commands.length !== 1) throw new Error(`${source}:${at}: a terminal 1 block runs one command`);
      step = { kind: 'sh', commands, background: terminal !== null && !interrupt, interrupt, expected: undefined, line: at };
    } else if (lang === 'text') {
      if (previous?.kind !== 'sh' || previous.commands.length === 0 || previous.expected !== undefined) throw new Error(`${source}:${at}: a text block must follow the sh block whose output it shows`);
      previous.expected = `${body.join('\n')}\n`;
    }
    if (step !== undefined) steps.push(step);
    // A text block belongs to the code block right before it (prose may come between).
    previous = step;
    i = end;
  }
  return steps;
}
