// The shell examples of docs/deposits.md, docs/refunds.md and docs/streamline.md run as written
// and print what the pages show (test/docs/examples.ts).
import { describeExamples } from './examples.ts';

describeExamples(['deposits.md', 'refunds.md', 'streamline.md']);
