import { ConfigError, loadConfig, type Config } from '../platform/config.js';

/**
 * The validated configuration, or undefined after printing why it is invalid
 * (the command then exits 2). Any other failure is a bug and is thrown.
 */
export function loadCliConfig(): Config | undefined {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return undefined;
    }
    throw error;
  }
}
