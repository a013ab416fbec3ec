#!/usr/bin/env node
// The CLI is TypeScript (an example to read); tsx runs it as it is. (Bun runs `src/bin.ts` directly.)
import { register } from 'tsx/esm/api';

register();
await import('../src/bin.ts');
