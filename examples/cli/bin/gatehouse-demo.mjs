#!/usr/bin/env node
// The CLI is TypeScript (an example to read); tsx runs it as it is.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
process.exitCode = await main(process.argv.slice(2));
