#!/usr/bin/env python3
"""Writes a large generated .stoat program to stdout (tests/scale, bench/run-compile).

usage: gen.py KIND N

KIND says what grows with N:
  and, or, sum, concat  an N-term chain v.p and v.p and ... in one lambda
                        (nested N deep: past MAX_EXPR_DEPTH it is an error)
  not, neg, parens, ifs N nested prefixes (not not ... v.p, - - ... v.a,
                        ((( v.a ))), if .. then 1 else if ...): nested to
                        the right, so the parser stacks them
  filters, maps         one pipeline of N |> filter / |> map_values steps
  streams               N stream definitions, each reading the previous one
  stmts                 N statements reading the same stream
  types                 N record types, each holding the previous one
  fields                a record type of N fields, read and written
  record                a record literal of N fields
"""
import sys

HEAD = ['app scale {}',
        'type E { a: i64, p: bool, s: string }',
        'stream src: string -> E from "in" format json;']


def chain(op, term, n):
    return (' %s ' % op).join([term] * n)


def program(kind, n):
    out = list(HEAD)
    if kind == 'and':
        out.append('src |> filter(v => %s) |> to "out";' % chain('and', 'v.p', n))
    elif kind == 'or':
        out.append('src |> filter(v => %s) |> to "out";' % chain('or', 'v.p', n))
    elif kind == 'sum':
        out.append('src |> map_values(v => %s) |> to "out";' % chain('+', 'v.a', n))
    elif kind == 'concat':
        out.append('src |> map_values(v => %s) |> to "out";' % chain('+', 'v.s', n))
    elif kind == 'not':
        out.append('src |> filter(v => %sv.p) |> to "out";' % ('not ' * n))
    elif kind == 'neg':
        out.append('src |> map_values(v => %sv.a) |> to "out";' % ('- ' * n))
    elif kind == 'parens':
        out.append('src |> map_values(v => %sv.a%s) |> to "out";' % ('(' * n, ')' * n))
    elif kind == 'ifs':
        out.append('src |> map_values(v => %s0) |> to "out";' % ('if v.p then 1 else ' * n))
    elif kind == 'filters':
        out.append('src' + ''.join('\n  |> filter(v => v.a > %d)' % i for i in range(n)) + '\n  |> to "out";')
    elif kind == 'maps':
        out.append('src' + '\n  |> map_values(v => { ...v, a: v.a + 1 })' * n + '\n  |> to "out";')
    elif kind == 'streams':
        prev = 'src'
        for i in range(n):
            out.append('stream s%d = %s |> filter(v => v.a > %d);' % (i, prev, i))
            prev = 's%d' % i
        out.append('%s |> to "out";' % prev)
    elif kind == 'stmts':
        for i in range(n):
            out.append('src |> filter(v => v.a > %d) |> to "out%d";' % (i, i))
    elif kind == 'types':
        out.append('type T0 { x: i64 }')
        for i in range(1, n):
            out.append('type T%d { x: i64, prev: T%d }' % (i, i - 1))
        out.append('src |> map_values(v => T0 { x: v.a }) |> to "out";')
    elif kind == 'fields':
        out.append('type W { %s }' % ', '.join('f%d: i64' % i for i in range(n)))
        out.append('stream ws: string -> W from "in2" format json;')
        out.append('ws |> map_values(w => W { ...w, f0: w.f1 }) |> to "out";')
        out.append('src |> to "out3";')
    elif kind == 'record':
        out.append('src |> map_values(v => { %s }) |> to "out";' % ', '.join('f%d: v.a' % i for i in range(n)))
    else:
        sys.exit('gen.py: unknown kind %r' % kind)
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.stdout.write(program(sys.argv[1], int(sys.argv[2])))
