//===- OpKindCases.h - Case labels per operator family ----------*- C++ -*-===//
//
// The case labels of one family of operator kinds (a section of the OpKind
// enum, OpSemantics.h), for switches that treat the family alike and stay
// exhaustive under -Werror=switch: a new kind goes into the enum and into
// its family here, and every such switch takes it. OpKindCasesTest checks
// the elementwise family against the operator records' `elementwise` fact.
//
//   switch (kind) {
//   case OpKind::Matmul: ...
//   MIRAGE_ELEMENTWISE_OP_KIND_CASES:
//   MIRAGE_GRAPH_STRUCTURE_OP_KIND_CASES:
//     return std::nullopt;
//   }
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_SEMANTICS_OPKINDCASES_H
#define MIRAGE_SEMANTICS_OPKINDCASES_H

#include "mirage/Semantics/OpSemantics.h"

/// The elementwise operators, unary and binary.
#define MIRAGE_ELEMENTWISE_OP_KIND_CASES                                       \
  case ::mirage::OpKind::Exp:                                                  \
  case ::mirage::OpKind::Sqrt:                                                 \
  case ::mirage::OpKind::Square:                                               \
  case ::mirage::OpKind::Silu:                                                 \
  case ::mirage::OpKind::Sigmoid:                                              \
  case ::mirage::OpKind::Gelu:                                                 \
  case ::mirage::OpKind::Relu:                                                 \
  case ::mirage::OpKind::Neg:                                                  \
  case ::mirage::OpKind::Tanh:                                                 \
  case ::mirage::OpKind::Rsqrt:                                                \
  case ::mirage::OpKind::MulScalar:                                            \
  case ::mirage::OpKind::AddScalar:                                            \
  case ::mirage::OpKind::Add:                                                  \
  case ::mirage::OpKind::Sub:                                                  \
  case ::mirage::OpKind::Mul:                                                  \
  case ::mirage::OpKind::Div:                                                  \
  case ::mirage::OpKind::Pow:                                                  \
  case ::mirage::OpKind::Maximum

/// The block- and thread-graph structure: iterators, savers, accumulators.
#define MIRAGE_GRAPH_STRUCTURE_OP_KIND_CASES                                   \
  case ::mirage::OpKind::InputIterator:                                        \
  case ::mirage::OpKind::OutputSaver:                                          \
  case ::mirage::OpKind::AccumSum:                                             \
  case ::mirage::OpKind::AccumMax:                                             \
  case ::mirage::OpKind::AccumConcat:                                          \
  case ::mirage::OpKind::AccumRescaledSum

#endif // MIRAGE_SEMANTICS_OPKINDCASES_H
