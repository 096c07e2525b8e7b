#!/usr/bin/env python3
"""SASS without cuobjdump (issue 7, cuda_notes 182): the kernels of an sm_90 cubin as opcode mnemonics with their
control bits (stall cycles, write / read scoreboards, the scoreboards waited on), its loops (backward branches) and,
per loop, the waits on a global load's scoreboard with their distance from the load. The development machine has
nvcc and ptxas but no cuobjdump or nvdisasm; the mnemonic of each opcode (the low 12 bits) comes from a table read
off cuobjdump's output on the device (the mnemonic's first word only: IMAD stands for IMAD, IMAD.MOV, IMAD.WIDE ...;
an opcode not in the table prints as ?xyz, e.g. ?983 LDL and ?387 STL, spills). Control bits: bits 105-125 of the
instruction (stall 4, yield 1, write scoreboard 3, read scoreboard 3, wait mask 6); branch offsets: bits 16-23 and
34-81 (signed, in 4-byte units), read off the same output. Registers as raw fields (d: bits 16-23, a: 24-31, b:
32-39, c: 64-71), meaningful per opcode only.
  nvcc -O3 -arch=sm_90 -cubin --fmad=false -std=c++17 -Isrc -Iinclude src/cuda/k_forces.cu -o /tmp/f.cubin
  bench/cuda/sass_lite.py /tmp/f.cubin                 # kernels and sizes
  bench/cuda/sass_lite.py /tmp/f.cubin k_vort3w loops  # loops of the kernels whose name contains k_vort3w
  bench/cuda/sass_lite.py /tmp/f.cubin k_vort3w 48c0-6000  # one address range: listing, histogram, load waits
  bench/cuda/sass_lite.py --table cuobjdump_sass.txt   # a new opcode table from `cuobjdump -sass` output
"""
import collections
import re
import struct
import sys

OPS = {
    0x202: 'MOV', 0x207: 'SEL', 0x208: 'FSEL', 0x20b: 'FSETP', 0x20c: 'ISETP', 0x210: 'IADD3', 0x211: 'LEA',
    0x212: 'LOP3', 0x213: 'IABS', 0x219: 'SHF', 0x220: 'FMUL', 0x221: 'FADD', 0x223: 'FFMA', 0x224: 'IMAD',
    0x227: 'IMAD', 0x248: 'VIMNMX', 0x287: 'USEL', 0x28c: 'UISETP', 0x290: 'UIADD3', 0x291: 'ULEA', 0x292: 'ULOP3',
    0x2a4: 'UIMAD', 0x2a5: 'UIMAD', 0x2bd: 'UFLO', 0x2ca: 'R2UR', 0x302: 'FCHK', 0x305: 'F2I', 0x306: 'I2F',
    0x308: 'MUFU', 0x348: 'WARPSYNC', 0x388: 'STS', 0x389: 'SHFL', 0x3c4: 'REDUX', 0x421: 'FADD', 0x423: 'FFMA',
    0x424: 'IMAD', 0x435: 'HFMA2', 0x446: 'VIADDMNMX', 0x4a4: 'UIMAD', 0x589: 'SHFL', 0x802: 'MOV', 0x803: 'P2R',
    0x805: 'CS2R', 0x806: 'VOTE', 0x807: 'SEL', 0x808: 'FSEL', 0x80b: 'FSETP', 0x80c: 'ISETP', 0x810: 'IADD3',
    0x811: 'LEA', 0x812: 'LOP3', 0x816: 'PRMT', 0x819: 'SHF', 0x81c: 'PLOP3', 0x820: 'FMUL', 0x823: 'FFMA',
    0x824: 'IMAD', 0x825: 'IMAD', 0x836: 'VIADD', 0x846: 'VIADDMNMX', 0x848: 'VIMNMX', 0x882: 'UMOV',
    0x886: 'VOTEU', 0x887: 'USEL', 0x88c: 'UISETP', 0x890: 'UIADD3', 0x892: 'ULOP3', 0x8a4: 'UIMAD', 0x908: 'MUFU',
    0x918: 'NOP', 0x919: 'S2R', 0x91b: 'ENDCOLLECTIVE', 0x941: 'BSYNC', 0x944: 'CALL', 0x945: 'BSSY', 0x947: 'BRA',
    0x948: 'WARPSYNC', 0x94d: 'EXIT', 0x950: 'RET', 0x981: 'LDG', 0x984: 'LDS', 0x986: 'STG', 0x989: 'SHFL',
    0x98e: 'REDG', 0x9c3: 'S2UR', 0xab9: 'ULDC', 0xb1d: 'BAR', 0xb82: 'LDC', 0xc02: 'MOV', 0xc0c: 'ISETP',
    0xc0f: 'VIMNMX3', 0xc10: 'IADD3', 0xc11: 'LEA', 0xc12: 'LOP3', 0xc20: 'FMUL', 0xc24: 'IMAD', 0xc36: 'VIADD',
    0xc48: 'VIMNMX', 0xc82: 'UMOV', 0xd06: 'I2F', 0xe24: 'IMAD', 0xe46: 'VIADDMNMX', 0xf89: 'SHFL'
}


def sections(path):
    d = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3A)
    sh = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
    stro = sh[shstrndx][4]

    def name(o):
        return d[stro + o:d.index(b'\0', stro + o)].decode()
    return {name(s[0]): d[s[4]:s[4] + s[5]] for s in sh}


def decode(code):
    out = []
    for a in range(0, len(code) - 15, 16):
        lo, hi = struct.unpack_from('<QQ', code, a)
        v, c = lo | hi << 64, hi >> 41
        op = OPS.get(lo & 0xfff, '?%03x' % (lo & 0xfff))
        off = (v >> 16) & 0xff | ((((v >> 34) & ((1 << 48) - 1)) - ((1 << 48) if (v >> 81) & 1 else 0)) << 8)
        out.append(dict(a=a, op=op, pred=((lo >> 12) & 0xf) != 7, st=c & 0xf, wb=(c >> 5) & 7, rb=(c >> 8) & 7,
                        wt=(c >> 11) & 0x3f, tgt=a + 16 + 4 * off if op == 'BRA' else None,
                        r=((lo >> 16) & 0xff, (lo >> 24) & 0xff, (lo >> 32) & 0xff, hi & 0xff)))
    return out


def line(x):
    return '%05x st%2d %s %s wait %6s %s%-6s d%d a%d b%d c%d' % (
        x['a'], x['st'], 'W%d' % x['wb'] if x['wb'] != 7 else '  ', 'R%d' % x['rb'] if x['rb'] != 7 else '  ',
        bin(x['wt'])[2:], '@ ' if x['pred'] else '  ', x['op'], *x['r'])


def region(ins, lo, hi):
    reg = [x for x in ins if lo <= x['a'] <= hi]
    h = collections.Counter(x['op'] for x in reg)
    print('%d instructions: %s' % (len(reg), ' '.join('%s:%d' % kv for kv in h.most_common())))
    last = {}  # scoreboard -> the global load that last set it (another writer clears it)
    for n, x in enumerate(reg):
        for sb, (m, a) in list(last.items()):
            if x['wt'] >> sb & 1 and x['op'] != 'CALL':
                print('  %05x %-6s waits SB%d, %d instructions after the load at %05x' % (x['a'], x['op'], sb, n - m, a))
        if x['wb'] != 7:
            if x['op'] == 'LDG':
                last[x['wb']] = (n, x['a'])
            else:
                last.pop(x['wb'], None)
    return reg


def main():
    if sys.argv[1] == '--table':
        tab = collections.defaultdict(collections.Counter)
        for m in re.finditer(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z0-9_]+)[^;]*;\s+/\* (0x[0-9a-f]+) \*/',
                             open(sys.argv[2]).read()):
            tab[int(m.group(2), 16) & 0xfff][m.group(1)] += 1
        for k in sorted(tab):
            print("    0x%03x: '%s'," % (k, tab[k].most_common(1)[0][0]))
        return
    secs = sections(sys.argv[1])
    for name, code in secs.items():
        if not name.startswith('.text.') or (len(sys.argv) > 2 and sys.argv[2] not in name):
            continue
        ins = decode(code)
        print('%s: %d instructions' % (name[6:], len(ins)))
        if len(sys.argv) > 3 and sys.argv[3] == 'loops':
            at = {x['a']: i for i, x in enumerate(ins)}
            for i, x in enumerate(ins):
                if x['tgt'] is not None and x['tgt'] < x['a'] and x['tgt'] in at:
                    h = collections.Counter(y['op'] for y in ins[at[x['tgt']]:i + 1])
                    print('  loop %05x-%05x %4d instructions, LDG %d BAR %d SHFL %d' % (
                        x['tgt'], x['a'], i + 1 - at[x['tgt']], h['LDG'], h['BAR'], h['SHFL']))
        elif len(sys.argv) > 3:
            lo, hi = (int(t, 16) for t in sys.argv[3].split('-'))
            for x in region(ins, lo, hi):
                print(line(x))


if __name__ == '__main__':
    main()
