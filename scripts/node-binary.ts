import { fileURLToPath } from 'node:url';
import { ensureNode, NODE_VERSIONS, type NodeMajor } from '../runtime/nodeBinary.js';

/**
 * Node 22 and 24 binaries for what needs them (runtime/nodeBinary.ts: the conformance suite, the CI's unit tests):
 * `NODE<major>_PATH`, else the machine cache, else installed from the npm registry into it.
 */
export { ensureNode, NODE_VERSIONS, type NodeMajor };

/** `tsx scripts/node-binary.ts <major>` prints the binary's path (installing it first when needed). */
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const major = Number(process.argv[2]);
  if (!(major in NODE_VERSIONS)) {
    console.error(`usage: tsx scripts/node-binary.ts <${Object.keys(NODE_VERSIONS).join('|')}>`);
    process.exit(2);
  }
  console.log(ensureNode(major as NodeMajor));
}
