#!/usr/bin/env node
// The `runway` executable (package.json "bin"): registers tsx from this package, wherever the command runs, then
// loads the TypeScript entry point. Inside the repository `npm run runway -- ...` does the same.
import { register } from 'tsx/esm/api';

register();
await import('../runway.ts');
