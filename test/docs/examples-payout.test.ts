// The shell examples of docs/cashouts.md, docs/validation.md and docs/balance.md run as written
// and print what the pages show (test/docs/examples.ts).
import { describeExamples } from './examples.ts';

describeExamples(['cashouts.md', 'validation.md', 'balance.md']);
