import re,sys
# usage: variants.py fused.mlir FUNC reference.mlir out.mlir F1 F2 ...
src, func, ref, out = sys.argv[1:5]
fls = [tuple(int(y) for y in x.split(':')) if ':' in x else (int(x), 128) for x in sys.argv[5:]]
s = open(src).read()
m = re.search(r'  func\.func @%s\(.*?\n  }\n' % func, s, re.S)
body = m.group(0)
orig_fl = int(re.search(r'forloop (\d+) \{', body.split('tb.graph grid [4, 16, 8]')[1] if 'tb.graph grid [4, 16, 8]' in body else body).group(1))
parts = []
for fl, th in fls:
    p = 512 // fl
    def tile(mt):
        dims = mt.group(1).split('x')
        dims = [str(p) if d == '16' else d for d in dims]
        return '!tb.tile<' + 'x'.join(dims) + 'xf16>'
    b = body.replace('@%s(' % func, '@%s_p%d%s(' % (func, p, '' if th == 128 else '_t%d' % th))
    # only inside the flash kernel (the first kn.kernel): its graph header has forloop orig
    chunks = re.split(r'(?= = kn\.kernel)', b)
    chunks = [re.sub(r'!tb\.tile<([0-9x]+)xf16>', tile, c.replace('threads 128 forloop 32 {', 'threads %d forloop %d {' % (th, fl))) if 'threads 128 forloop 32 {' in c else c for c in chunks]
    b = ''.join(chunks)
    b = b.replace(') -> tensor<16x256x64xf16> {', ') -> tensor<16x256x64xf16> attributes {kn.reference = @%s} {' % func, 1)
    parts.append(b)
r = open(ref).read()
rm = re.search(r'func\.func @%s\(.*?\n}\n' % func, r, re.S).group(0)
open(out, 'w').write('module {\n' + rm + '\n'.join(parts) + '}\n')
