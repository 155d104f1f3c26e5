// Shared fixtures of the tend tests: fixed uuids and a note with frontmatter.
export const UUID = {
  a: 'aaaaaaaa-0000-4000-8000-000000000001',
  b: 'bbbbbbbb-0000-4000-8000-000000000002',
  c: 'cccccccc-0000-4000-8000-000000000003',
  old: 'dddddddd-0000-4000-8000-000000000004',
  next: 'eeeeeeee-0000-4000-8000-000000000005',
  gone: 'ffffffff-0000-4000-8000-000000000006',
} as const;

/** A note file: frontmatter with the uuid (and extra lines), `# Title`, then the body lines. */
export function noteText(uuid: string, title: string, body: string[], extra: string[] = []): string {
  return ['---', `uuid: ${uuid}`, `title: ${title}`, ...extra, '---', '', `# ${title}`, '', ...body, ''].join('\n');
}

export const RFC4122 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
