// Tasks are costed with the speed model kn-fuse{persistent} plans with
// (tg::estimateTaskMicros): a tiny task's fixed latencies count. RoCo's 128
// score-sum tasks (3.15 us each on an H200) were estimated at 0.8 us by the
// former byte count, and list scheduling stacked 12 tasks on some workers
// while others held one; they ran 25 us one after another
// (docs/results/2026-11-27-h200-trinity.md). No worker holds more than 8
// now.
// RUN: mirage-opt %examples/trinity/roco.mlir --mirage-to-task-graph 2>/dev/null | FileCheck %s

// CHECK: tg.graph @roco_tasks
// CHECK-NOT: tg.queue worker {{[0-9]+}} [{{([0-9]+, ){8,}[0-9]+}}]
// CHECK: tg.queue worker 131 [{{([0-9]+, ){0,7}[0-9]+}}]{{$}}
// CHECK-NEXT: {{^  }$}}
