// A command line the CLI cannot run as given: main.ts prints the message and the usage, exit 64.
export class UsageError extends Error {}
