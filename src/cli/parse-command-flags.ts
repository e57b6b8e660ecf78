import { parseArgs } from 'node:util';

/** A command's flags, or the exit code once its usage or a usage error is printed. */
export type ParsedFlags<Flag extends string> = { readonly values: Partial<Record<Flag, string>> } | { readonly exitCode: number };

/**
 * Parses a command's string flags strictly (no positionals, an unknown flag is
 * refused), with `--help`/`-h` added. A usage error is printed as one line
 * under the command's name (exit 2); `--help` prints the usage (exit 0).
 */
export function parseCommandFlags<Flag extends string>(
  command: string,
  usage: string,
  args: readonly string[],
  flags: readonly Flag[],
): ParsedFlags<Flag> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = Object.fromEntries(flags.map((flag) => [flag, { type: 'string' }]));
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: [...args], options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // One line: some of parseArgs's messages go on with hints over several.
    console.error(`${command}: ${(error as Error).message.split('\n')[0]}`);
    return { exitCode: 2 };
  }
  if (values.help === true) {
    console.log(usage);
    return { exitCode: 0 };
  }
  return { values: values as Partial<Record<Flag, string>> };
}
