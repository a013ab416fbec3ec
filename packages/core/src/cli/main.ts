#!/usr/bin/env node
/** The `gatehouse` command (`npx @gatehousejs/core keys generate`). Node only; not part of any import entry. */
import { runKeysCommand } from './keys-command.js';

// No top-level await: the CJS build of this file must compile too.
void runKeysCommand(process.argv.slice(2)).then((outcome) => {
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
});
