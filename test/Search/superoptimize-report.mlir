// mirage-superoptimize{report=...}: the candidates the search weighed, as a
// table on stderr and an HTML page with a bar chart. With timings (a
// results.json, or as here a name -> microseconds object) the measured
// column fills and the measured best is chosen. No candidate carries dead
// work (an unread kernel output, a block-graph node that reaches no
// output): before, the second-best kernel computed x @ W as an extra,
// unread output.
// RUN: echo '{"rmsnorm_linear_sub1": 9.5, "rmsnorm_linear_sub1_top2": 4.0}' > %t.json
// RUN: mirage-opt %s --mirage-superoptimize="max-block-ops=3 threads=1 progress=0 report=%t.html timings=%t.json" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: FileCheck %s --check-prefix=HTML < %t.html
// RUN: not mirage-opt %s --mirage-superoptimize="max-block-ops=3 threads=1 progress=0 report=%t.missing/r.html" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// TABLE: search report: @rmsnorm_linear subprogram #1 (2 ops)
// TABLE-NEXT: searched in {{.*}} s: {{[0-9]+}} kernel graphs, {{[0-9]+}} block graphs, {{[0-9]+}} complete; {{[0-9]+}} candidates ranked, 3 verified
// TABLE-NEXT: structure est. us  meas. us  verdict
// TABLE-NEXT: program  rms_norm; matmul 7.1 9.5  as written
// TABLE-NEXT: #1 kernel[grid {{.*}}](rms_norm, matmul) {{[0-9.]+}} -  proven
// TABLE-NEXT: *#2 kernel[grid {{.*}}](rms_norm, matmul) {{[0-9.]+}} 4.0  proven (chosen)
// TABLE-NEXT: #3 {{.*}}  proven
// TABLE-NEXT: #4 {{.*}}  not checked (top-k reached)
// TABLE-NOT: matmul, matmul
// TABLE-NOT: reduce_sum

// HTML: <title>mirage-superoptimize report</title>
// HTML: <h2>@rmsnorm_linear subprogram #1 (2 ops)</h2>
// HTML: <svg
// HTML: <title>#2 measured: 4.00 us</title>
// HTML: (orange: measured)
// HTML: </svg>
// HTML: <td>program</td><td><details><summary><code>rms_norm; matmul</code></summary><pre>t3 = rms_norm{{.*}}(t0,t1); t4 = matmul(t3,t2); return t4</pre></details></td><td class="num">7.1</td><td class="num">9.5</td><td>as written</td>
// HTML: <tr class="chosen"><td>#2 (chosen)</td>
// HTML: not checked (top-k reached)

// UNWRITABLE: error: cannot write '{{.*}}missing/r.html'

func.func @rmsnorm_linear(%x: tensor<2x256xf16>, %g: tensor<256xf16>, %w: tensor<256x512xf16>) -> tensor<2x512xf16> {
  %y = kn.rms_norm %x weight %g {eps = 1.0e-6 : f64} : tensor<2x256xf16>, tensor<256xf16>
  %z = kn.matmul %y, %w : tensor<2x256xf16>, tensor<256x512xf16>
  return %z : tensor<2x512xf16>
}
