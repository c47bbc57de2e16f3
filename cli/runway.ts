import { runCli } from './runway/program.js';

// The user CLI (`runway ...`, `npm run runway -- ...`): talks to a Runway API with an sk_ key. See README "CLI".
process.exitCode = await runCli(process.argv);
