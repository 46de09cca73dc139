import { CommanderError, type Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { createProgram } from '../../../src/cli/createProgram.js';

/**
 * Runs ARGS through a fresh program; what it printed (commander throws after a help or an error).
 * Caught at process.stdout and process.stderr: a subcommand writes through its own output settings.
 */
async function parse(args: string[]): Promise<{ program: Command; out: string; err: string }> {
  const program = createProgram();
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await expect(program.parseAsync(['node', 'erp-sync', ...args])).rejects.toBeInstanceOf(CommanderError);
    return {
      program,
      out: out.mock.calls.map(([text]) => String(text)).join(''),
      err: err.mock.calls.map(([text]) => String(text)).join(''),
    };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const named = (program: Command, name: string): Command => program.commands.find((c) => c.name() === name)!;

/** Every command's help text, each asked for as `erp-sync help NAME` (one at a time: the writes are caught). */
async function everyHelp(): Promise<string[]> {
  const names = createProgram()
    .commands.map((c) => c.name())
    .filter((name) => name !== 'help');
  const texts: string[] = [];
  for (const name of names) texts.push((await parse(['help', name])).out);
  return texts;
}

describe('createProgram: a command is described when it runs or a help shows it', () => {
  it('a command that runs gets its options, the others only their name', async () => {
    const { program, out } = await parse(['check', '--help']);
    expect(out).toMatch(/^Usage: erp-sync check \[options\]\n/);
    expect(out).toContain('--json');
    expect(named(program, 'check').options.map((o) => o.long)).toEqual(['--json']);
    expect(named(program, 'sandbox').options).toEqual([]);
    expect(named(program, 'store').commands).toEqual([]);
    expect(named(program, 'sandbox').description()).toBe('');
  });

  it("the program's help lists every command as described, asked for or after an error before the command", async () => {
    const asked = (await parse(['--help'])).out;
    expect(asked).toMatch(/^ {2}sandbox \[options\] {2,}Run the API v2 sandbox/m);
    expect(asked).toMatch(/^ {2}sync \[options\] <pipeline> {2,}enqueue a run/m);
    expect(asked).toMatch(/^ {2}store {2,}manage the local store$/m);
    expect(asked).toMatch(/^ {2}start {2,}run the daemon in the foreground/m);
    // an unknown option before the command: commander's error, then the whole program's help
    const afterError = await parse(['--json', 'check']);
    expect(afterError.err).toBe(`error: unknown option '--json'\n\n${asked}`);
    // the same text whichever command ran first in the process's program
    const { program } = await parse(['check', '--help']);
    expect(program.helpInformation().trimEnd()).toBe(asked.trimEnd());
  });

  it("a command's help is the same asked as `help NAME`, as `NAME --help` and from a fully described program", async () => {
    const viaHelp = await everyHelp();
    const names = createProgram()
      .commands.map((c) => c.name())
      .filter((name) => name !== 'help');
    const viaFlag: string[] = [];
    for (const name of names) viaFlag.push((await parse([name, '--help'])).out);
    expect(viaFlag).toEqual(viaHelp);
    const described = createProgram();
    described.helpInformation(); // describes every command
    expect(names.map((name) => named(described, name).helpInformation().trimEnd())).toEqual(
      viaHelp.map((text) => text.trimEnd()),
    );
    expect(viaHelp.find((text) => text.startsWith('Usage: erp-sync store'))).toMatch(
      /^ {2}migrate \[options\]/m,
    );
  });

  it('a subcommand runs with its defaults and its parsers', async () => {
    const program = createProgram().exitOverride();
    const sandbox = named(program, 'sandbox');
    let seen: unknown;
    program.hook('preSubcommand', () => {
      sandbox.action((flags: unknown) => {
        seen = flags;
      });
    });
    await program.parseAsync(['node', 'erp-sync', 'sandbox', '--port', '0']);
    expect(seen).toMatchObject({ host: '127.0.0.1', port: 0, db: ':memory:', seed: 'demo' });
    await expect(parse(['sandbox', '--port', '70000'])).resolves.toMatchObject({
      err: expect.stringContaining('--port') as string,
    });
  });
});
