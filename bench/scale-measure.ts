export async function measurePair(a: string, b: string): Promise<Record<string, unknown>> { return { a, b }; }
