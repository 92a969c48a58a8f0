// The shell examples of docs/notifications.md, docs/cli.md and the README run as written and
// print what the pages show (test/docs/examples.ts).
import { describeExamples } from './examples.ts';

describeExamples(['notifications.md', 'cli.md', '../README.md']);
