// Small source documents built in memory: a DOCX (a minimal zip of WordprocessingML) and a PDF
// (hand-written objects with one text stream per page), so no binary fixtures are needed.
import zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** An entry already deflated, with the size it unpacks to and the size the archive declares. */
export interface PackedEntry {
  packed: Buffer;
  size: number;
  crc: number;
  /** What the headers claim it unpacks to (default: the true size). */
  declared?: number;
}

/** A zip archive of deflated entries. */
export function zip(entries: Record<string, string | PackedEntry>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    let entry: PackedEntry;
    if (typeof content === 'string') {
      const data = Buffer.from(content, 'utf8');
      entry = { packed: zlib.deflateRawSync(data), size: data.length, crc: crc32(data) };
    } else {
      entry = content;
    }
    const { packed, crc } = entry;
    const size = entry.declared ?? entry.size;
    const fileName = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(fileName.length, 26);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(20, 4); // version made by
    head.writeUInt16LE(20, 6); // version needed
    head.writeUInt16LE(8, 10); // deflate
    head.writeUInt32LE(crc, 16);
    head.writeUInt32LE(packed.length, 20);
    head.writeUInt32LE(size, 24);
    head.writeUInt16LE(fileName.length, 28);
    head.writeUInt32LE(offset, 42);
    locals.push(local, fileName, packed);
    central.push(head, fileName);
    offset += local.length + fileName.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length / 2, 8);
  end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * `mib` MiB of zeros, deflated without ever holding them: one fully flushed block of 1 MiB of zeros
 * compresses the same way every time, so repeating it makes a valid stream of any length (about
 * 1 KB per MiB).
 */
export function deflatedZeros(mib: number): PackedEntry {
  const mebibyte = Buffer.alloc(1 << 20);
  const block = zlib.deflateRawSync(mebibyte, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  let crc = 0;
  for (let i = 0; i < mib; i++) crc = zlib.crc32(mebibyte, crc);
  return { packed: Buffer.concat([...Array(mib).fill(block), zlib.deflateRawSync(Buffer.alloc(0))]), size: mib << 20, crc };
}

/** A DOCX whose document part is `mib` MiB of zeros; `declared` makes its headers lie about that size. */
export function zipBombDocx(mib: number, declared?: number): Buffer {
  return zip({ '[Content_Types].xml': '<?xml version="1.0"?><Types/>', 'word/document.xml': { ...deflatedZeros(mib), declared } });
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A DOCX whose paragraphs are given as [style, text]; style `Heading1`, `Heading2` or '' for body text. */
export function makeDocx(paragraphs: Array<[string, string]>): Buffer {
  const body = paragraphs
    .map(([style, text]) => {
      const props = style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : '';
      return `<w:p>${props}<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
    })
    .join('');
  const styles = ['Heading1', 'Heading2'].map((id, i) => `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="heading ${i + 1}"/></w:style>`).join('');
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    'word/_rels/document.xml.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
    'word/styles.xml': `<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="${W}">${styles}</w:styles>`,
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`,
  });
}

/** A PDF with one page per entry; each line of a page is drawn as one line of Helvetica text. */
export function makePdf(pages: string[]): Buffer {
  const objects: string[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  const kids: string[] = [];
  let n = 4;
  for (const page of pages) {
    const stream = page
      .split('\n')
      .map((line, i) => `BT /F1 12 Tf 72 ${720 - i * 16} Td (${line.replace(/[()\\]/g, '\\$&')}) Tj ET`)
      .join('\n');
    const pageId = n++;
    const contentId = n++;
    kids.push(`${pageId} 0 R`);
    objects[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentId} 0 R >>`;
    objects[contentId] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  }
  objects[2] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let i = 1; i < objects.length; i++) {
    offsets[i] = Buffer.byteLength(out, 'latin1');
    out += `${i} 0 obj\n${objects[i]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  out += offsets
    .slice(1)
    .map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)
    .join('');
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
