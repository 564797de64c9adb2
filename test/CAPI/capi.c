/*===- capi.c - The Mirage C API, used from C -----------------------------===*/
/*                                                                            */
/* Dialect handles, registration, the conversions, pipelines, PTX and the     */
/* diagnostics of refused input, through mirage-c and mlir-c only.            */
/*                                                                            */
/*===----------------------------------------------------------------------===*/

/* RUN: mirage-capi-test 2>&1 | FileCheck %s
 */

#include "mirage-c/Dialects.h"
#include "mirage-c/Passes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/Dialect/Tosa.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* Diagnostics: severity and message, one line each. */
static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  const char *severity = "note";
  switch (mlirDiagnosticGetSeverity(diagnostic)) {
  case MlirDiagnosticError:
    severity = "error";
    break;
  case MlirDiagnosticWarning:
    severity = "warning";
    break;
  case MlirDiagnosticRemark:
    severity = "remark";
    break;
  default:
    break;
  }
  printf("diagnostic %s: ", severity);
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(diagnostic); ++i) {
    printf("diagnostic note: ");
    mlirDiagnosticPrint(mlirDiagnosticGetNote(diagnostic, i), printToStdout,
                        NULL);
    printf("\n");
  }
  return mlirLogicalResultSuccess();
}

static MlirContext createContext(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mirageRegisterAllDialects(registry);
  MlirDialectHandle inputs[] = {
      mlirGetDialectHandle__arith__(),  mlirGetDialectHandle__func__(),
      mlirGetDialectHandle__linalg__(), mlirGetDialectHandle__math__(),
      mlirGetDialectHandle__tensor__(), mlirGetDialectHandle__tosa__()};
  for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); ++i)
    mlirDialectHandleInsertDialect(inputs[i], registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  return context;
}

static MlirModule parse(MlirContext context, const char *text) {
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(text));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    exit(1);
  }
  return module;
}

static void printModule(MlirModule module) {
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
}

static const char *succeeded(MlirLogicalResult result) {
  return mlirLogicalResultIsSuccess(result) ? "success" : "failure";
}

/* Each handle names its dialect, which then loads. */
static void testDialectHandles(void) {
  printf("testDialectHandles\n");
  MlirContext context = mlirContextCreate();
  MlirDialectHandle handles[] = {
      mlirGetDialectHandle__kn__(), mlirGetDialectHandle__tb__(),
      mlirGetDialectHandle__th__(), mlirGetDialectHandle__tg__()};
  for (size_t i = 0; i < 4; ++i) {
    MlirStringRef name = mlirDialectHandleGetNamespace(handles[i]);
    mlirDialectHandleRegisterDialect(handles[i], context);
    MlirDialect dialect = mlirDialectHandleLoadDialect(handles[i], context);
    printf("%.*s loaded %d\n", (int)name.length, name.data,
           !mlirDialectIsNull(dialect));
  }
  mlirContextDestroy(context);
}
// CHECK-LABEL: testDialectHandles
// CHECK: kn loaded 1
// CHECK: tb loaded 1
// CHECK: th loaded 1
// CHECK: tg loaded 1

/* A kernel graph parses and verifies with the kn handle alone. */
static void testKernelGraph(void) {
  printf("testKernelGraph\n");
  MlirContext context = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__func__(), context);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__kn__(), context);
  MlirModule module = parse(
      context,
      "func.func @f(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {\n"
      "  %y = kn.exp %x : tensor<4x8xf16>\n"
      "  return %y : tensor<4x8xf16>\n"
      "}\n");
  printf("verified %d\n",
         mlirOperationVerify(mlirModuleGetOperation(module)));
  printModule(module);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}
// CHECK-LABEL: testKernelGraph
// CHECK: verified 1
// CHECK: kn.exp %{{.*}} : tensor<4x8xf16>

static const char *linalgMatmul =
    "func.func @mm(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>) -> "
    "tensor<16x64xf32> {\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<16x64xf32>\n"
    "  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> "
    "tensor<16x64xf32>\n"
    "  %m = linalg.matmul ins(%a, %b : tensor<16x32xf32>, "
    "tensor<32x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>\n"
    "  return %m : tensor<16x64xf32>\n"
    "}\n";

struct Search {
  const char *needle;
  int found;
};

static void findInObject(MlirStringRef text, void *userData) {
  struct Search *search = (struct Search *)userData;
  size_t length = strlen(search->needle);
  for (size_t i = 0; i + length <= text.length; ++i)
    if (memcmp(text.data + i, search->needle, length) == 0) {
      search->found = 1;
      return;
    }
}

/* linalg in, kn out, PTX out: the conversion, then mirage-to-ptx. */
static void testLinalgToPTX(void) {
  printf("testLinalgToPTX\n");
  MlirContext context = createContext();
  MlirModule module = parse(context, linalgMatmul);
  printf("convert: %s\n",
         succeeded(mirageConvertLinalgToKernel(module, false)));
  printModule(module);
  printf("lower: %s\n",
         succeeded(mirageLowerToPTX(
             module, mlirStringRefCreateFromCString("chip=sm_90a"))));
  struct Search target = {".target sm_90a", 0};
  intptr_t objects = mirageForEachGPUObject(module, findInObject, &target);
  printf("objects %ld, target found %d\n", (long)objects, target.found);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}
// CHECK-LABEL: testLinalgToPTX
// CHECK: convert: success
// CHECK-NOT: linalg.
// CHECK: kn.matmul %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32x64xf32>
// CHECK: lower: success
// CHECK: objects 1, target found 1

/* tosa through a textual pipeline with the registered passes. */
static void testPassPipeline(void) {
  printf("testPassPipeline\n");
  MlirContext context = createContext();
  MlirModule module = parse(
      context,
      "func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> "
      "tensor<4x8xf32> {\n"
      "  %r = tosa.reciprocal %b : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
      "  %s = \"tosa.const\"() {values = dense<0> : tensor<1xi8>} : () -> "
      "tensor<1xi8>\n"
      "  %m = tosa.mul %a, %r, %s : (tensor<4x8xf32>, tensor<4x8xf32>, "
      "tensor<1xi8>) -> tensor<4x8xf32>\n"
      "  return %m : tensor<4x8xf32>\n"
      "}\n");
  printf("pipeline: %s\n",
         succeeded(mirageRunPassPipeline(
             module, mlirStringRefCreateFromCString("convert-tosa-to-kn"))));
  printModule(module);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}
// CHECK-LABEL: testPassPipeline
// CHECK: pipeline: success
// CHECK-NOT: tosa.
// CHECK: kn.div %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>

/* The pass object in an upstream pass manager. */
static void testPassObject(void) {
  printf("testPassObject\n");
  MlirContext context = createContext();
  MlirModule module = parse(context, linalgMatmul);
  MlirPassManager pm = mlirPassManagerCreate(context);
  mlirPassManagerAddOwnedPass(pm, mirageCreateConvertLinalgToKernel(false));
  printf("run: %s\n", succeeded(mlirPassManagerRunOnOp(
                          pm, mlirModuleGetOperation(module))));
  printModule(module);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}
// CHECK-LABEL: testPassObject
// CHECK: run: success
// CHECK: kn.matmul

/* Refused input is an error that says why, never a silent success. */
static void testRefusals(void) {
  printf("testRefusals\n");
  MlirContext context = createContext();
  MlirModule module = parse(
      context,
      "func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
      "  %e = tensor.empty() : tensor<4x8xf32>\n"
      "  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, "
      "affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", "
      "\"parallel\"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {\n"
      "  ^bb0(%x: f32, %o: f32):\n"
      "    %y = math.log %x : f32\n"
      "    linalg.yield %y : f32\n"
      "  } -> tensor<4x8xf32>\n"
      "  return %t : tensor<4x8xf32>\n"
      "}\n");
  printf("lower linalg directly: %s\n",
         succeeded(mirageLowerToPTX(module, mlirStringRefCreateFromCString(""))));
  printf("convert: %s\n",
         succeeded(mirageConvertLinalgToKernel(module, false)));
  printf("convert, keeping: %s\n",
         succeeded(mirageConvertLinalgToKernel(module, true)));
  printf("bad pipeline: %s\n",
         succeeded(mirageRunPassPipeline(
             module, mlirStringRefCreateFromCString("no-such-pass"))));
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}
// CHECK-LABEL: testRefusals
// CHECK: diagnostic error: kn-fuse reads kernel graphs (kn) only: convert this linalg op first (convert-linalg-to-kn
// CHECK: lower linalg directly: failure
// CHECK: diagnostic error: cannot be converted to kn (convert-linalg-to-kn): the body's 'math.log' has no kn operator
// CHECK: diagnostic note: 'math.log' is here
// CHECK: convert: failure
// CHECK: diagnostic remark: kept, not converted to kn (convert-linalg-to-kn): the body's 'math.log' has no kn operator
// CHECK: convert, keeping: success
// CHECK: diagnostic error: invalid pass pipeline 'builtin.module(no-such-pass)'
// CHECK: bad pipeline: failure

int main(void) {
  testDialectHandles();
  testKernelGraph();
  testLinalgToPTX();
  testPassPipeline();
  testPassObject();
  testRefusals();
  return 0;
}
