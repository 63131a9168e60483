/** The built-in command CI adapter: see command-ci.ts. */
import { CommandCi, type CommandCiOptions } from './command-ci.js';

export { CommandCi, type CommandCiOptions } from './command-ci.js';

export function createCommandCi(opts: CommandCiOptions): CommandCi {
  return new CommandCi(opts);
}
