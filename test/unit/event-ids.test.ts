import { describe, expect, it } from 'vitest';
import { EventIdCodec } from '../../api/eventIds.js';

const codec = new EventIdCodec('MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=');

describe('EventIdCodec: the id of an iteration event', () => {
  it('gives back the position it sealed, on the run it was sealed for', () => {
    for (const position of [1, 2, 1000, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      const id = codec.encode('run_a', position);
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(codec.decode('run_a', id)).toBe(position);
      // the same position, the same id: a late iteration sent with the highest position repeats its id
      expect(codec.encode('run_a', position)).toBe(id);
    }
  });

  it('says nothing of the position: consecutive positions give unrelated, unordered ids', () => {
    const ids = Array.from({ length: 200 }, (_, i) => codec.encode('run_a', i + 1));
    expect(new Set(ids).size).toBe(200);
    expect(ids).not.toEqual(ids.toSorted());
    // no shared prefix between neighbours beyond chance (a counter in clear would share most of it)
    const shared = ids.slice(1).filter((id, i) => id.slice(0, 3) === ids[i].slice(0, 3)).length;
    expect(shared).toBeLessThan(3);
    for (const id of ids) expect(Number.isNaN(Number(id))).toBe(true);
  });

  it("refuses another run's id, another installation's, a tampered one and anything else", () => {
    const id = codec.encode('run_a', 42);
    expect(codec.decode('run_b', id)).toBeUndefined();
    expect(codec.encode('run_b', 42)).not.toBe(id);
    expect(new EventIdCodec('another secret').decode('run_a', id)).toBeUndefined();
    const flipped = `${id[0] === 'A' ? 'B' : 'A'}${id.slice(1)}`;
    expect(codec.decode('run_a', flipped)).toBeUndefined();
    for (const bad of ['', '42', '1'.repeat(22), `${id}A`, id.slice(1), `${id.slice(0, 21)}=`, 'é'.repeat(22)])
      expect(codec.decode('run_a', bad), bad).toBeUndefined();
  });
});
