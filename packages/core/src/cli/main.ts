#!/usr/bin/env node
/**
 * The `gatehouse` command (`npx @gatehousejs/core keys generate`, `npx gatehouse admin …`). Node
 * only; not part of any import entry.
 */
import { runAdminCommand } from './admin-command.js';
import { runKeysCommand } from './keys-command.js';

const args = process.argv.slice(2);
const run = args[0] === 'admin' ? runAdminCommand(args.slice(1), { env: process.env }) : runKeysCommand(args);
// No top-level await: the CJS build of this file must compile too.
void run.then((outcome) => {
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
});
