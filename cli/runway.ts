import { runCli } from './runway/program.js';

// The user CLI (`runway ...`, `npm run runway -- ...`): talks to a Runway API with an sk_ key. See docs/CLI.md.
process.exitCode = await runCli(process.argv);
