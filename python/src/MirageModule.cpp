//===- MirageModule.cpp - Python bindings for Mirage ----------------------===//
//
// pybind11 bindings over the C++ API (Debian's MLIR ships no Python
// bindings): parse, verify, print and transform modules, and build kernel
// graphs whose shapes come from the same operator records as the verifiers.
// Diagnostics become Python exceptions; nothing aborts the interpreter.
//
//===----------------------------------------------------------------------===//

#include "mirage/IR/GraphUtils.h"
#include "mirage/InitAllDialects.h"
#include "mirage/InitAllPasses.h"
#include "mirage/Interpreter/Interpreter.h"
#include "mirage/Semantics/Formula.h"
#include "mirage/Semantics/OpSemantics.h"
#include "mirage/Target/Bundle.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;

namespace {

/// Raised for IR that does not parse or verify and for failed passes.
struct MirageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::shared_ptr<MLIRContext> getContext() {
  static std::shared_ptr<MLIRContext> context = [] {
    mirage::registerAllPasses();
    registerTransformsPasses(); // canonicalize, cse, ...
    DialectRegistry registry;
    mirage::registerAllDialects(registry);
    mirage::registerMirageToPTXDependencies(registry);
    auto context = std::make_shared<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    return context;
  }();
  return context;
}

/// Collects every diagnostic emitted while alive as "severity: message" lines
/// prefixed by their location.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          std::string line;
          llvm::raw_string_ostream os(line);
          os << mirage::formatLocation(diag.getLocation()) << ": ";
          switch (diag.getSeverity()) {
          case DiagnosticSeverity::Error:
            os << "error: ";
            break;
          case DiagnosticSeverity::Warning:
            os << "warning: ";
            break;
          case DiagnosticSeverity::Remark:
            os << "remark: ";
            break;
          case DiagnosticSeverity::Note:
            os << "note: ";
            break;
          }
          os << diag.str();
          messages.push_back(line);
          return success();
        }) {}

  std::string joined() const {
    std::string text;
    for (const std::string &message : messages)
      text += message + "\n";
    return text;
  }

  std::vector<std::string> messages;

private:
  ScopedDiagnosticHandler handler;
};

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

class PyModule {
public:
  explicit PyModule(OwningOpRef<ModuleOp> module)
      : context(getContext()), module(std::move(module)) {}

  static PyModule parse(const std::string &text) {
    std::shared_ptr<MLIRContext> context = getContext();
    DiagnosticCollector diagnostics(context.get());
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(text, context.get(), "<python>");
    if (!module)
      throw MirageError(diagnostics.joined());
    return PyModule(std::move(module));
  }

  std::string str() { return print(*module); }

  std::vector<std::string> functions() {
    std::vector<std::string> names;
    for (auto function : module->getOps<func::FuncOp>())
      names.push_back(function.getSymName().str());
    return names;
  }

  /// Runs a textual pass pipeline on the module, anchored
  /// ("builtin.module(tb-report-resources)") or not ("tb-report-resources"),
  /// returning the remarks and warnings it emitted.
  std::vector<std::string> run(const std::string &pipeline) {
    PassManager passes(context.get());
    std::string error;
    llvm::raw_string_ostream errorStream(error);
    LogicalResult parsed = failure();
    if (StringRef(pipeline).starts_with("builtin.module(")) {
      FailureOr<OpPassManager> anchored =
          parsePassPipeline(pipeline, errorStream);
      if (succeeded(anchored)) {
        static_cast<OpPassManager &>(passes) = *anchored;
        parsed = success();
      }
    } else {
      parsed = parsePassPipeline(pipeline, passes, errorStream);
    }
    if (failed(parsed))
      throw std::invalid_argument("invalid pass pipeline '" + pipeline +
                                  "': " + error);
    DiagnosticCollector diagnostics(context.get());
    if (failed(passes.run(*module)))
      throw MirageError(diagnostics.joined());
    return diagnostics.messages;
  }

  /// Runs function `name` in the float64 reference interpreter (the
  /// equivalence verifier's), on arrays of any real dtype; the outputs are
  /// float64 arrays. A reference for checking, not a fast path.
  std::vector<py::array_t<double>> runReference(
      const std::string &name,
      const std::vector<py::array_t<double, py::array::c_style |
                                                py::array::forcecast>> &inputs,
      int64_t maxElements) {
    auto function = module->lookupSymbol<func::FuncOp>(name);
    if (!function)
      throw std::invalid_argument("no function @" + name + " in the module");
    llvm::Expected<mirage::Program> program =
        mirage::Program::compile(function, maxElements);
    if (!program)
      throw MirageError(llvm::toString(program.takeError()));
    llvm::ArrayRef<mirage::Shape> shapes = program->getInputShapes();
    if (inputs.size() != shapes.size())
      throw std::invalid_argument(
          "@" + name + " takes " + std::to_string(shapes.size()) +
          " inputs, got " + std::to_string(inputs.size()));
    std::vector<mirage::F64Tensor> tensors;
    for (auto [index, array] : llvm::enumerate(inputs)) {
      mirage::Shape shape(array.shape(), array.shape() + array.ndim());
      if (shape != shapes[index]) {
        std::string expected, got;
        for (int64_t size : shapes[index])
          expected += std::to_string(size) + " ";
        for (int64_t size : shape)
          got += std::to_string(size) + " ";
        throw std::invalid_argument("input " + std::to_string(index) + " of @" +
                                    name + " has shape [ " + got +
                                    "], expected [ " + expected + "]");
      }
      mirage::F64Tensor tensor(shape);
      std::copy(array.data(), array.data() + array.size(), tensor.data.begin());
      tensors.push_back(std::move(tensor));
    }
    llvm::Expected<std::vector<mirage::F64Tensor>> outputs = [&] {
      py::gil_scoped_release release;
      return program->run(tensors);
    }();
    if (!outputs)
      throw MirageError(llvm::toString(outputs.takeError()));
    std::vector<py::array_t<double>> results;
    for (mirage::F64Tensor &output : *outputs) {
      py::array_t<double> array(
          std::vector<py::ssize_t>(output.shape.begin(), output.shape.end()));
      std::copy(output.data.begin(), output.data.end(), array.mutable_data());
      results.push_back(std::move(array));
    }
    return results;
  }

  /// Compiles function `name` into a bundle (docs/Bundle.md) in
  /// `directory`/<bundle name> and returns that path: what mirage-bundle
  /// writes, to run with mirage_mlir.runtime.Bundle or mirage-run.
  std::string writeBundle(const std::string &name, const std::string &directory,
                          const std::string &chip, bool fuse, bool reference,
                          const std::string &ptxas, bool megakernel,
                          bool scaleWeights) {
    if (!module->lookupSymbol<func::FuncOp>(name))
      throw std::invalid_argument("no function @" + name + " in the module");
    mirage::BundleOptions options;
    options.chip = chip;
    options.fuse = fuse;
    options.computeReference = reference;
    options.ptxas = ptxas;
    options.megakernel = megakernel;
    options.scaleWeights = scaleWeights;
    options.source = "<python>";
    std::string log;
    llvm::raw_string_ostream logStream(log);
    DiagnosticCollector diagnostics(context.get());
    std::string bundle = directory + "/" + mirage::getBundleName(name, options);
    if (llvm::Error error =
            mirage::writeBundle(*module, name, bundle, options, logStream))
      throw MirageError(llvm::toString(std::move(error)) + "\n" +
                        diagnostics.joined());
    return bundle;
  }

private:
  std::shared_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
};

//===----------------------------------------------------------------------===//
// KernelGraph: build a kn program op by op
//===----------------------------------------------------------------------===//

struct PyTensor {
  mutable Value value;
  std::vector<int64_t> shape() const {
    auto type = cast<RankedTensorType>(value.getType());
    return {type.getShape().begin(), type.getShape().end()};
  }
  std::string dtype() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << cast<RankedTensorType>(value.getType()).getElementType();
    return text;
  }
};

class PyKernelGraph {
public:
  explicit PyKernelGraph(const std::string &name)
      : context(getContext()), builder(context.get()),
        loc(FileLineColLoc::get(context.get(), "<python>", 0, 0)) {
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    function = func::FuncOp::create(builder, loc, name,
                                    builder.getFunctionType({}, {}));
    entry = function.addEntryBlock();
    builder.setInsertionPointToEnd(entry);
  }

  PyTensor input(const std::vector<int64_t> &shape, const std::string &dtype) {
    checkOpen();
    for (int64_t size : shape)
      if (size <= 0)
        throw py::value_error("input sizes must be positive");
    Type element = parseElementType(dtype);
    PyTensor tensor{entry->addArgument(RankedTensorType::get(shape, element),
                                       loc)};
    function.setType(builder.getFunctionType(entry->getArgumentTypes(), {}));
    return tensor;
  }

  /// Creates the kn op of operator `kind` with `params`: the record's shape
  /// rule gives the result types (or the error raised as ValueError).
  std::vector<PyTensor> make(mirage::OpKind kind,
                             const std::vector<PyTensor> &operands,
                             const mirage::OpParams &params = {}) {
    checkOpen();
    std::string name = ("kn." + mirage::getOpInfo(kind).name).str();
    SmallVector<Value> values;
    SmallVector<ArrayRef<int64_t>> shapes;
    Type element;
    for (const PyTensor &operand : operands) {
      if (operand.value.getParentBlock() != entry)
        throw py::value_error(name + ": an operand belongs to another graph");
      auto type = cast<RankedTensorType>(operand.value.getType());
      if (element && type.getElementType() != element)
        throw py::value_error(name + ": operands have different element types");
      element = type.getElementType();
      values.push_back(operand.value);
      shapes.push_back(type.getShape());
    }
    auto inferred = mirage::inferShapes(kind, shapes, params);
    if (!inferred)
      throw py::value_error(name + ": " + llvm::toString(inferred.takeError()));
    SmallVector<Type> types;
    for (const mirage::Shape &shape : *inferred)
      types.push_back(RankedTensorType::get(shape, element));

    FailureOr<Operation *> created =
        mirage::createOperatorOp<mirage::kn::KernelDialect>(
            builder, loc, kind, values, types,
            mirage::getOpAttributes(kind, params, builder));
    if (failed(created))
      throw py::value_error(name + ": no such kn op");
    Operation *op = *created;
    DiagnosticCollector diagnostics(context.get());
    if (failed(verify(op))) {
      op->erase();
      throw py::value_error(diagnostics.joined());
    }
    std::vector<PyTensor> results;
    for (Value result : op->getResults())
      results.push_back({result});
    return results;
  }

  PyTensor make1(mirage::OpKind kind, const std::vector<PyTensor> &operands,
                 const mirage::OpParams &params = {}) {
    return make(kind, operands, params).front();
  }

  void output(const std::vector<PyTensor> &results) {
    checkOpen();
    SmallVector<Value> values;
    for (const PyTensor &result : results) {
      if (result.value.getParentBlock() != entry)
        throw py::value_error("an output belongs to another graph");
      values.push_back(result.value);
    }
    func::ReturnOp::create(builder, loc, values);
    function.setType(builder.getFunctionType(entry->getArgumentTypes(),
                                             ValueRange(values).getTypes()));
    finished = true;
  }

  PyModule toModule() {
    if (!finished)
      throw MirageError("call output() before taking the module");
    DiagnosticCollector diagnostics(context.get());
    if (failed(verify(*module)))
      throw MirageError(diagnostics.joined());
    return PyModule::parse(print(*module));
  }

  std::string str() { return print(*module); }

private:
  void checkOpen() const {
    if (finished)
      throw MirageError("the graph is finished: output() was called");
  }

  Type parseElementType(const std::string &dtype) {
    if (dtype == "f16")
      return builder.getF16Type();
    if (dtype == "bf16")
      return builder.getBF16Type();
    if (dtype == "f32")
      return builder.getF32Type();
    throw py::value_error("dtype must be 'f16', 'bf16' or 'f32', got '" +
                          dtype + "'");
  }

  std::shared_ptr<MLIRContext> context;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
  Block *entry = nullptr;
  bool finished = false;
};

mirage::OpParams dimParams(int64_t dim, bool keepDim = true) {
  mirage::OpParams params;
  params.dim = dim;
  params.keepDim = keepDim;
  return params;
}

mirage::OpParams intsParams(const std::vector<int64_t> &ints,
                            int64_t dim = 0) {
  mirage::OpParams params;
  params.dim = dim;
  params.ints.assign(ints.begin(), ints.end());
  return params;
}

} // namespace

PYBIND11_MODULE(_mirage, m) {
  m.doc() = "Mirage MLIR: kernel graphs, block graphs and their verifiers";
  py::register_exception<MirageError>(m, "MirageError");

  py::class_<PyModule>(m, "Module")
      .def_static("parse", &PyModule::parse, py::arg("text"),
                  "Parses and verifies MLIR text; raises MirageError with the "
                  "diagnostics if it is invalid.")
      .def("__str__", &PyModule::str)
      .def_property_readonly("functions", &PyModule::functions)
      .def("run", &PyModule::run, py::arg("pipeline"),
           "Runs a pass pipeline such as 'tb-report-resources' in place and "
           "returns the remarks it emitted.")
      .def_static(
          "bundle_name",
          [](const std::string &function, bool megakernel) {
            mirage::BundleOptions options;
            options.megakernel = megakernel;
            return mirage::getBundleName(function, options);
          },
          py::arg("function"), py::arg("megakernel") = false,
          "The name (and directory) write_bundle gives a function's bundle.")
      .def("write_bundle", &PyModule::writeBundle, py::arg("function"),
           py::arg("directory"), py::arg("chip") = "sm_90a",
           py::arg("fuse") = true, py::arg("reference") = false,
           py::arg("ptxas") = "", py::arg("megakernel") = false,
           py::arg("scale_weights") = true,
           "Compiles a function into a bundle under `directory` (as "
           "mirage-bundle does) and returns the bundle's path. `ptxas`: "
           "empty searches PATH and /usr/local/cuda/bin, 'none' writes PTX "
           "only. `megakernel`: one persistent kernel for the whole function "
           "(mirage-to-megakernel; the bundle's name ends in _megakernel). "
           "`scale_weights`: draw each weight input (a matmul's right "
           "operand) at 1/sqrt(fan-in); False for programs that scale their "
           "products themselves (mirage-bundle --scale-weights).")
      .def("run_reference", &PyModule::runReference, py::arg("function"),
           py::arg("inputs"),
           py::arg("max_elements") = mirage::kDefaultMaxElements,
           "Runs a function of kn ops in the float64 reference interpreter on "
           "NumPy arrays and returns its outputs as float64 arrays. A "
           "reference for checking results, not a fast path.");

  py::class_<PyTensor>(m, "Tensor")
      .def_property_readonly("shape", &PyTensor::shape)
      .def_property_readonly("dtype", &PyTensor::dtype)
      .def("__repr__", [](const PyTensor &t) {
        std::string shape;
        for (int64_t size : t.shape())
          shape += std::to_string(size) + "x";
        return "<Tensor " + shape + t.dtype() + ">";
      });

  using K = mirage::OpKind;
  auto graph = py::class_<PyKernelGraph>(m, "KernelGraph");
  graph.def(py::init<const std::string &>(), py::arg("name"))
      .def("input", &PyKernelGraph::input, py::arg("shape"),
           py::arg("dtype") = "f16")
      .def("output",
           [](PyKernelGraph &g, py::args args) {
             std::vector<PyTensor> results;
             for (py::handle arg : args)
               results.push_back(arg.cast<PyTensor>());
             g.output(results);
           })
      .def("to_module", &PyKernelGraph::toModule)
      .def("__str__", &PyKernelGraph::str);

  // Elementwise operators, from the operator table: one method per
  // operator, named after it (x, or lhs and rhs, and a scalar where the
  // formula reads one).
  for (unsigned i = 0; i < mirage::kNumOpKinds; ++i) {
    auto kind = static_cast<K>(i);
    const mirage::OpInfo &info = mirage::getOpInfo(kind);
    if (!info.elementwise)
      continue;
    std::string name = info.name.str();
    if (info.minOperands == 2) {
      graph.def(name.c_str(), [kind](PyKernelGraph &g, PyTensor a, PyTensor b) {
        return g.make1(kind, {a, b});
      });
    } else if (!usesScalar(*mirage::getOpFormula(kind))) {
      graph.def(name.c_str(), [kind](PyKernelGraph &g, PyTensor x) {
        return g.make1(kind, {x});
      });
    } else {
      graph.def(name.c_str(),
                [kind](PyKernelGraph &g, PyTensor x, double scalar) {
                  mirage::OpParams params;
                  params.scalar = scalar;
                  return g.make1(kind, {x}, params);
                });
    }
  }
  graph.def("all_reduce", [](PyKernelGraph &g, PyTensor x) {
    return g.make1(K::AllReduce, {x});
  });
  graph.def("matmul", [](PyKernelGraph &g, PyTensor a, PyTensor b) {
    return g.make1(K::Matmul, {a, b});
  });
  for (K kind : {K::ReduceSum, K::ReduceMax})
    graph.def(
        mirage::getOpInfo(kind).name.str().c_str(),
        [kind](PyKernelGraph &g, PyTensor x, int64_t dim, bool keepdim) {
          return g.make1(kind, {x}, dimParams(dim, keepdim));
        },
        py::arg("x"), py::arg("dim"), py::arg("keepdim") = true);

  graph.def(
      "rms_norm",
      [](PyKernelGraph &g, PyTensor x, std::optional<PyTensor> weight,
         double eps) {
        std::vector<PyTensor> operands{x};
        if (weight)
          operands.push_back(*weight);
        mirage::OpParams params;
        params.scalar = eps;
        return g.make1(K::RmsNorm, operands, params);
      },
      py::arg("x"), py::arg("weight") = py::none(), py::arg("eps") = 0.0);
  graph.def(
      "concat",
      [](PyKernelGraph &g, const std::vector<PyTensor> &inputs, int64_t dim) {
        return g.make1(K::Concat, inputs, dimParams(dim));
      },
      py::arg("inputs"), py::arg("dim"));
  graph.def(
      "split",
      [](PyKernelGraph &g, PyTensor x, int64_t dim,
         const std::vector<int64_t> &sizes) {
        return g.make(K::Split, {x}, intsParams(sizes, dim));
      },
      py::arg("x"), py::arg("dim"), py::arg("sizes"));
  graph.def(
      "reshape",
      [](PyKernelGraph &g, PyTensor x, const std::vector<int64_t> &shape) {
        return g.make1(K::Reshape, {x}, intsParams(shape));
      },
      py::arg("x"), py::arg("shape"));
  graph.def(
      "transpose",
      [](PyKernelGraph &g, PyTensor x, const std::vector<int64_t> &perm) {
        return g.make1(K::Transpose, {x}, intsParams(perm));
      },
      py::arg("x"), py::arg("permutation"));
}
