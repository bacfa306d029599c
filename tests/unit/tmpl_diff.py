#!/usr/bin/env python3
"""Compare random alert templates as gpuwatch and promtool 2.42 expand them.

Builds templates from a grammar of Prometheus' functions, Go's builtins,
printf verbs, control structures and values; asks `promtool check rules`
which parse and `promtool test rules` how the rest render (as
tmpl_promtool.py does); runs build-cc/tests/tmpl_expand on the same; prints
every difference. A development aid, not a ctest: it needs promtool.

  python3 tests/unit/tmpl_diff.py [SEED] [COUNT] [EXPANDER]

Known differences: `query` results printed whole are pointers in Go.
Found differences worth keeping become cases in tmpl_cases.py.
"""
import os, random, re, subprocess, sys, tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tmpl_promtool  # noqa: E402

VALS = ['$value', '.Value', '$labels.gpu', '.Labels.instance', '$labels.nope', '"abc"', '"12.5"', '""', '"x y"',
        '"0.001"', '0', '1', '-3', '42', '1.5', '-0.25', '1e3', '2.5e-3', 'true', 'false', '$labels', '.', '$',
        '(sortByLabel "gpu" (query "q"))', '(first (sortByLabel "host" (query "q")))', '(query "nope")',
        '(args 1 "x")', '(toTime 1435781451.781)', '(safeHtml "<b>")', '(index $labels "job")', '(len $labels)',
        '"<a&b>"', '"héllo wörld"', '"%d"', "'a'", '0x1F', '`raw\\n`', '(args 1).arg5', '.ExternalURL',
        '.ExternalLabels', '(first (sortByLabel "gpu" (query "q"))).Labels.host', '(toTime 1e9).Unix',
        '((toTime 1435781451.781).Format "2006-01-02T15:04:05.000Z07:00 Mon Jan _2")', '$labels.__name__',
        '"(\\\\d+)"', '"^h"', '"[a-z]+"', '"$1-${1}x$$"', '"(?i)A|b*"', '"1h30m"', '"h1.example.com:9100"',
        '"\\u00e9\\t\\x41"', '(args)', '(slice "abcdef" 1 3)', '-0', '1e21', '0.1', '"NaN"', '"-Inf"',
        '1e-3', '999.9999', '1023.9', '86399.99', '-7.5e-8', '"1e5"', '"inf"', '3.14159', '1e100', '5e-324',
        '"ǅemal ÿ straße ΣΑΣ İı"', '"GPU-0 温度 über"', '"[::1]:80"', '"a.b.c"', '"10.1.2.3:9"', '"1d2h3m4s5ms"',
        '"1y2w"', '$externalLabels', '$externalURL', '"x{y=\\"z\\"}"', '"(a)|(b)"', '"\\\\s+"']
FUNCS = {'humanize': 1, 'humanize1024': 1, 'humanizeDuration': 1, 'humanizePercentage': 1, 'humanizeTimestamp': 1,
         'toTime': 1, 'title': 1, 'toUpper': 1, 'toLower': 1, 'stripPort': 1, 'stripDomain': 1, 'parseDuration': 1,
         'safeHtml': 1, 'graphLink': 1, 'tableLink': 1, 'len': 1, 'not': 1, 'index': 2, 'eq': 2, 'ne': 2, 'lt': 2,
         'le': 2, 'gt': 2, 'ge': 2, 'and': 2, 'or': 2, 'print': 2, 'println': 2, 'html': 1, 'js': 1,
         'urlquery': 1, 'match': 2, 'reReplaceAll': 3, 'first': 1, 'label': 2, 'value': 1, 'strvalue': 1,
         'args': 2, 'sortByLabel': 2, 'slice': 2}
VERBS = ['%v', '%s', '%d', '%f', '%.2f', '%5.1f', '%-6s|', '%q', '%x', '%X', '%g', '%e', '%t', '%T', '%08.3f',
         '%+d', '%10v|', '%.3s', '%c', '%o', '%b', '%U', '%%', '%!', '%[2]v', '%*d']
VALUES = ['0', '1', '-1.5', '87.5', '1e21', '1e-7', 'NaN', '+Inf', '-Inf', '123456.789', '0.1234']


class Gen:
    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.vals = list(VALS)

    def val(self, d=0):
        if d < 2 and self.rnd.random() < 0.3:
            return '(' + self.call(d + 1) + ')'
        return self.rnd.choice(self.vals)

    def verb(self):
        r = self.rnd
        flags = ''.join(r.choice('-+# 0') for _ in range(r.randint(0, 2)))
        width = str(r.randint(1, 12)) if r.random() < 0.4 else ''
        prec = '.' + str(r.randint(0, 5)) if r.random() < 0.4 else ''
        return '%' + flags + width + prec + r.choice('vsdqxXobcefgGEtTU')

    def call(self, d=0):
        r = self.rnd
        if r.random() < 0.15:
            fmt = ''.join((r.choice(VERBS) if r.random() < 0.5 else self.verb()) + r.choice(['', ' ', '|', 'x'])
                          for _ in range(r.randint(1, 3)))
            return 'printf "%s"%s' % (fmt, ''.join(' ' + self.val(d) for _ in range(r.randint(0, 3))))
        name = r.choice(sorted(FUNCS))
        args = [self.val(d) for _ in range(max(0, FUNCS[name] + r.choice([0, 0, 0, 0, 1, -1])))]
        if r.random() < 0.25 and args:
            return self.val(d) + ' | ' + name + ''.join(' ' + a for a in args[:-1])
        return name + ''.join(' ' + a for a in args)

    def template(self):
        r = self.rnd
        parts = []
        if r.random() < 0.2:
            parts.append('{{ $x := ' + self.val() + ' }}')
            self.vals.append('$x')
        for _ in range(r.randint(1, 3)):
            k = r.random()
            if k < 0.08:
                parts.append('{{- ' + self.call() + ' -}}')
            elif k < 0.12:
                parts.append('{{ range ' + self.val() + ' }}{{ if ' + self.call() + ' }}{{ break }}{{ end }}'
                             '{{ . }}{{ end }}')
            elif k < 0.16:
                body = self.call().replace('$value', '.').replace('$labels', '.').replace('$x', '.')
                parts.append('{{ define "d" }}[{{ . }}|{{ ' + body + ' }}]{{ end }}{{ template "d" ' + self.val() + ' }}')
            elif k < 0.2:
                parts.append('{{ if ' + self.call() + ' }}A{{ else if ' + self.call() + ' }}B{{ else }}C{{ end }}')
            elif k < 0.24:
                parts.append('{{ range $k, $v := ' + self.val() + ' }}{{ if eq $k 1 "gpu" }}{{ continue }}{{ end }}'
                             '{{ $k }}:{{ $v }} {{ else }}none{{ end }}')
            elif k < 0.27:
                parts.append('{{/* c */}}{{ $y := 0 }}{{ with ' + self.val() + ' }}{{ $y = . }}{{ end }}{{ $y }}')
            elif k < 0.6:
                parts.append('{{ ' + self.call() + ' }}')
            elif k < 0.7:
                parts.append('{{ if ' + self.call() + ' }}T{{ else }}F{{ end }}')
            elif k < 0.8:
                parts.append('{{ with ' + self.val() + ' }}<{{ . }}>{{ else }}none{{ end }}')
            elif k < 0.9:
                parts.append('{{ range $i, $e := ' + self.val() + ' }}{{ $i }}={{ $e }};{{ else }}empty{{ end }}')
            else:
                parts.append('{{ ' + self.val() + ' }}')
            parts.append(r.choice(['', ' ', '|', '\n']))
        if '$x' in self.vals:
            self.vals.remove('$x')
        return ''.join(parts)


TOKENS = ['if', 'else', 'end', 'range', 'with', 'break', 'continue', 'define', 'template', 'block', 'nil', 'true',
          '.', '.Labels', '.Labels.gpu', '$', '$x', '$labels', ':=', '=', '|', '(', ')', ',', '"s"', '`r`', "'c'",
          '1', '-2', '1.5e3', '0x1F', '3x', '1e', '"unterminated', 'humanize', 'printf', 'nosuch', '#', '{{', '}}',
          '\n', ' ', '  ', '/*', '*/', '-', '"a\\qb"', '$labels.gpu', 'len', 'query', 'é']


def soup(rnd):
    '''Token soup inside and around actions: for the lexer's and parser's messages.'''
    out = []
    for _ in range(rnd.randint(1, 4)):
        out.append(rnd.choice(['', 'text ', '\n', ' ']))
        out.append(rnd.choice(['{{', '{{ ', '{{- ', '{{/* c */}}', '{{- /* c */ -}}']))
        out.append(' '.join(rnd.choice(TOKENS) for _ in range(rnd.randint(0, 5))))
        out.append(rnd.choice(['}}', ' }}', ' -}}', '', '}} {{ end }}']))
    return ''.join(out)


def expand(exe, cases, check):
    data = b''.join(t.encode() + b'\x1f' + v.encode() + b'\x1e' for t, v in cases)
    out = subprocess.run([exe] + (['check'] if check else []), input=data, capture_output=True, check=True)
    return out.stdout.split(b'\x1e')


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    exe = sys.argv[3] if len(sys.argv) > 3 else 'build-cc/tests/tmpl_expand'
    gen = Gen(seed)
    cases = [(gen.template() if i % 4 else soup(gen.rnd), gen.rnd.choice(VALUES)) for i in range(count)]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        rules = [{'alert': 'A%d' % i, 'expr': 'up', 'annotations': {'t': t}} for i, (t, _) in enumerate(cases)]
        with open(os.path.join(tmp, 'chk.yml'), 'w') as f:
            yaml.safe_dump({'groups': [{'name': 'g', 'rules': rules}]}, f, allow_unicode=True)
        p = subprocess.run(['promtool', 'check', 'rules', 'chk.yml'], cwd=tmp, capture_output=True, text=True)
        perr = {int(m.group(1)): m.group(2)
                for m in re.finditer(r'"A(\d+)": annotation "t": (.*)', p.stdout + p.stderr)}
        mine = expand(exe, cases, True)
        for i, (t, _) in enumerate(cases):
            if mine[i].decode('utf-8', 'replace') != perr.get(i, 'OK'):
                bad += 1
                print('--- parse %d %r\n  go: %s\n  c:  %s' % (i, t, perr.get(i, 'OK'), mine[i].decode()))
        cases = [c for i, c in enumerate(cases) if i not in perr]
        tmpl_promtool.RENDER = cases
        got = tmpl_promtool.render(tmp)
    mine = expand(exe, cases, False)
    for i, (t, v) in enumerate(cases):
        if mine[i] != got[i] and b'0xc0' not in got[i]:
            bad += 1
            print('--- %d %r $value=%s\n  go: %s\n  c:  %s' % (i, t, v, got[i].decode('utf-8', 'replace'),
                                                          mine[i].decode('utf-8', 'replace')))
    print('%d differences in %d templates' % (bad, count))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
