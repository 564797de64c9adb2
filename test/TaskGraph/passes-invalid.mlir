// The tg passes refuse graphs they cannot work on, with a reason.
// RUN: not mirage-opt %s --tg-linearize -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINEAR
// RUN: not mirage-opt %s --tg-schedule -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not mirage-opt %s --tg-normalize --tg-linearize --tg-schedule=device=b300 -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not mirage-opt %s --tg-normalize --tg-linearize --tg-schedule=workers=-2 -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WORKERS

// A task waiting on two events is not normalized; the schedule needs the
// linearized order.
// LINEAR: error: cannot linearize: task 1 (empty) has several events to wait on or trigger; normalize first
// SCHEDULE: error: tg-schedule needs a linearized task graph; run tg-normalize and tg-linearize first
// DEVICE: error: tg-schedule: unknown value 'b300' for option 'device'; valid values: h100, h200
// WORKERS: error: tg-schedule: workers must be 0 or positive, got -2
tg.graph @not_normalized {
  %a = tg.event triggers 0
  %b = tg.event triggers 0
  tg.task empty aot waits(%a)
  tg.task empty aot waits(%a, %b)
}
