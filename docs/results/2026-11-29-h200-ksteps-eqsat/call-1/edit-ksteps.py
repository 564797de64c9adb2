"""Writes the k-step variants of call 1: the persistent fused decode layer
(mirage-opt --kn-fuse=persistent=true --kn-default-block-graphs=persistent=true
examples/qwen3_decode.mlir -o fused.mlir) with the O projection (%11) and
the down projection (%15) given more, shorter for-loop iterations."""
import re
src = open('fused.mlir').read()

def edit(s, name, fold, fnew, kold):
    i = s.index('    %s = kn.kernel' % name)
    j = s.index('\n', s.index('    } :', i))
    body = s[i:j]
    knew = kold * fold // fnew
    body = body.replace('forloop %d ' % fold, 'forloop %d ' % fnew)
    body = body.replace('x%dxf16' % kold, 'x%dxf16' % knew)
    body = body.replace('<%dx32xf16>' % kold, '<%dx32xf16>' % knew)
    body = body.replace('1x%dxf16' % kold, '1x%dxf16' % knew)
    old, new = 32 // fold, 32 // fnew
    body = body.replace('tile<1x%dxf16> -> !tb.tile<1x32xf16>' % old,
                        'tile<1x%dxf16> -> !tb.tile<1x32xf16>' % new)
    body = body.replace('-> !tb.tile<1x%dxf16>\n' % old,
                        '-> !tb.tile<1x%dxf16>\n' % new)
    return s[:i] + body + s[j:]

for tag, (o, d) in {'o8d16': (8, 16), 'o16d16': (16, 16),
                    'o16d32': (16, 32)}.items():
    s = edit(src, '%11', 4, o, 1024)
    s = edit(s, '%15', 8, d, 1536)
    open('fused_%s.mlir' % tag, 'w').write(s)
