// hostile_fixtures.mjs — writes the hostile inputs of tests/cli/hostile_ingest.sh into
// the directory given as the only argument, so nothing hostile is committed:
//   bomb.pdf    one page, 4 MiB of Flate-compressed text operators drawn over and over
//               (a 15 KB file; unbounded, poppler needs ~300 MB for it)
//   slow.pdf    one page, 2 Mi "q Q" pairs (graphics state saved and restored: seconds of
//               work without memory or text)
//   pages.pdf   10001 pages sharing one small content stream
//   text.pdf    30 pages of about 8 KB of text each
//   attrs*.html one <p> with 40000, 300000 or 256 attributes
//   utf7.html   a <p> with 1000 attributes written in UTF-7 behind <meta charset="utf-7">
//               (the \xff makes the file non-UTF-8, so the declared charset applies)
//   long.txt    99999 bytes of text
//
// Usage: node tests/cli/hostile_fixtures.mjs DIR
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node hostile_fixtures.mjs DIR");
  process.exit(2);
}
const write = (name, data) => writeFileSync(join(dir, name), data);
const latin1 = (s) => Buffer.from(s, "latin1");

// A PDF whose pages have the given content streams (the same Buffer is one object).
function pdf(contents) {
  const objects = [
    latin1("<< /Type /Catalog /Pages 2 0 R >>"),
    null,
    latin1("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
  ];
  const streams = new Map();
  const kids = [];
  for (const content of contents) {
    if (!streams.has(content)) {
      const data = deflateSync(content, { level: 9 });
      objects.push(Buffer.concat([
        latin1(`<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`),
        data,
        latin1("\nendstream"),
      ]));
      streams.set(content, objects.length);
    }
    objects.push(latin1("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " +
      `/Resources << /Font << /F1 3 0 R >> >> /Contents ${streams.get(content)} 0 R >>`));
    kids.push(objects.length);
  }
  objects[1] = latin1(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] ` +
    `/Count ${kids.length} >>`);
  const parts = [latin1("%PDF-1.4\n")];
  const offsets = [];
  let length = parts[0].length;
  objects.forEach((object, i) => {
    offsets.push(length);
    const part = Buffer.concat([latin1(`${i + 1} 0 obj\n`), object, latin1("\nendobj\n")]);
    parts.push(part);
    length += part.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`];
  for (const o of offsets) xref.push(`${String(o).padStart(10, "0")} 00000 n \n`);
  xref.push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  parts.push(latin1(xref.join("")));
  return Buffer.concat(parts);
}

const MiB = 1048576;
const block = ("(" + "A".repeat(60) + ") Tj 0 -10 Td\n").repeat(70) + "0 700 Td\n";
write("bomb.pdf", pdf([latin1("BT /F1 12 Tf 72 720 Td\n" +
  block.repeat(Math.floor((4 * MiB) / block.length)) + "ET\n")]));
write("slow.pdf", pdf([latin1("q Q\n".repeat(2 * MiB) + "BT /F1 12 Tf 72 720 Td (slow) Tj ET\n")]));
const small = latin1("BT /F1 12 Tf 72 720 Td (page text) Tj ET\n");
write("pages.pdf", pdf(new Array(10001).fill(small)));
const page = latin1("BT /F1 8 Tf 10 780 Td 10 TL\n" + ("(" + "word ".repeat(20) + ") '\n").repeat(78) +
  "ET\n");
write("text.pdf", pdf(new Array(30).fill(page)));

const attributes = (n, value) => Array.from({ length: n }, (_, i) => `a${i}${value}`).join(" ");
for (const [n, name] of [[40000, "attrs40k.html"], [300000, "attrs300k.html"], [256, "attrs256.html"]]) {
  write(name, `<html><body><p ${attributes(n, '="x"')}>hello world</p></body></html>\n`);
}
write("utf7.html", Buffer.concat([
  latin1('<html><head><meta charset="utf-7"></head><body><p>x\xff</p>+ADw-p '),
  latin1(attributes(1000, "") + "+AD4-hidden</body></html>\n"),
]));
write("long.txt", "x".repeat(99998) + "\n");
