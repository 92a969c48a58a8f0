#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx caja …` works without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
