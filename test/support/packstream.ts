/**
 * Just enough PackStream (Bolt's value encoding) for a fake server: null, booleans, integers,
 * floats, strings, lists, maps and structures, read and written; bytes are read only.
 */

export class Structure {
  constructor(
    readonly signature: number,
    readonly fields: PackValue[],
  ) {}
}

export type PackValue = null | boolean | number | string | Uint8Array | PackValue[] | { [key: string]: PackValue } | Structure;

export function pack(value: PackValue): Buffer {
  if (value === null) return Buffer.from([0xc0]);
  if (value === true) return Buffer.from([0xc3]);
  if (value === false) return Buffer.from([0xc2]);
  if (typeof value === 'number') return Number.isInteger(value) ? packInteger(value) : packFloat(value);
  if (typeof value === 'string') return packSized(Buffer.from(value, 'utf8'), 0x80, 0xd0);
  if (value instanceof Structure) return Buffer.concat([Buffer.from([0xb0 + value.fields.length, value.signature]), ...value.fields.map(pack)]);
  if (Array.isArray(value)) return Buffer.concat([header(value.length, 0x90, 0xd4), ...value.map(pack)]);
  if (value instanceof Uint8Array) throw new Error('packing bytes is not supported');
  const entries = Object.entries(value);
  return Buffer.concat([header(entries.length, 0xa0, 0xd8), ...entries.flatMap(([k, v]) => [pack(k), pack(v)])]);
}

function packInteger(n: number): Buffer {
  if (n >= -16 && n <= 127) return Buffer.from([n & 0xff]);
  if (n >= -128 && n <= 127) return Buffer.from([0xc8, n & 0xff]);
  const b = Buffer.alloc(n >= -32768 && n <= 32767 ? 3 : 5);
  if (b.length === 3) b.writeInt16BE(n, 1);
  else b.writeInt32BE(n, 1);
  b[0] = b.length === 3 ? 0xc9 : 0xca;
  return b;
}

function packFloat(n: number): Buffer {
  const b = Buffer.alloc(9);
  b[0] = 0xc1;
  b.writeDoubleBE(n, 1);
  return b;
}

/** Tiny (marker + size in the low nibble), 8, 16 or 32-bit size. */
function header(size: number, tiny: number, sized8: number): Buffer {
  if (size < 16) return Buffer.from([tiny + size]);
  if (size < 0x100) return Buffer.from([sized8, size]);
  if (size < 0x10000) return Buffer.from([sized8 + 1, size >> 8, size & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = sized8 + 2;
  b.writeUInt32BE(size, 1);
  return b;
}

function packSized(bytes: Buffer, tiny: number, sized8: number): Buffer {
  return Buffer.concat([header(bytes.length, tiny, sized8), bytes]);
}

/** Reads one value from `buffer` at `offset`; returns it and the offset after it. */
export function unpack(buffer: Buffer, offset = 0): [PackValue, number] {
  const marker = buffer[offset]!;
  let at = offset + 1;
  const size = (kind: number): number => {
    if ((marker & 0xf0) === kind) return marker & 0x0f;
    const width = [1, 2, 4][marker & 0x03]!;
    const n = width === 1 ? buffer.readUInt8(at) : width === 2 ? buffer.readUInt16BE(at) : buffer.readUInt32BE(at);
    at += width;
    return n;
  };
  if (marker < 0x80) return [marker, at];
  if (marker >= 0xf0) return [marker - 0x100, at];
  switch (marker) {
    case 0xc0: return [null, at];
    case 0xc2: return [false, at];
    case 0xc3: return [true, at];
    case 0xc1: return [buffer.readDoubleBE(at), at + 8];
    case 0xc8: return [buffer.readInt8(at), at + 1];
    case 0xc9: return [buffer.readInt16BE(at), at + 2];
    case 0xca: return [buffer.readInt32BE(at), at + 4];
    case 0xcb: return [Number(buffer.readBigInt64BE(at)), at + 8];
  }
  if ((marker & 0xf0) === 0x80 || (marker >= 0xd0 && marker <= 0xd2)) {
    const n = size(0x80);
    return [buffer.toString('utf8', at, at + n), at + n];
  }
  if (marker >= 0xcc && marker <= 0xce) {
    const n = size(0x00);
    return [new Uint8Array(buffer.subarray(at, at + n)), at + n];
  }
  if ((marker & 0xf0) === 0x90 || (marker >= 0xd4 && marker <= 0xd6)) {
    const items: PackValue[] = [];
    for (let n = size(0x90); n > 0; n--) [items[items.length], at] = unpack(buffer, at);
    return [items, at];
  }
  if ((marker & 0xf0) === 0xa0 || (marker >= 0xd8 && marker <= 0xda)) {
    const map: Record<string, PackValue> = {};
    for (let n = size(0xa0); n > 0; n--) {
      const [key, afterKey] = unpack(buffer, at);
      [map[String(key)], at] = unpack(buffer, afterKey);
    }
    return [map, at];
  }
  if ((marker & 0xf0) === 0xb0) {
    const signature = buffer[at++]!;
    const fields: PackValue[] = [];
    for (let n = marker & 0x0f; n > 0; n--) [fields[fields.length], at] = unpack(buffer, at);
    return [new Structure(signature, fields), at];
  }
  throw new Error(`unsupported PackStream marker 0x${marker.toString(16)}`);
}
