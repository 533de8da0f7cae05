// `tessel`: the command-line entry point; dispatches to subcommands.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "support/error.h"

namespace {

void print_usage() {
  std::cerr << "usage: tessel <command> [options]\n"
               "commands:\n"
               "  demo [--threads N] [--print-after PASS|all] [--small]\n"
               "       build matmul, conv2d and softmax; print their IR; run and check them\n"
               "  test-onnx <dir>... [--jobs N] [--timeout S] [--expected FILE] [--report FILE]\n"
               "      [--rtol X] [--atol X] [--compiled] [--no-fusion] [--no-blocked-layout]\n"
               "      [--no-winograd] [--symbolic-batch] [--target T]\n"
               "       run ONNX backend test cases (model.onnx + test_data_set_*) and compare\n"
               "  list-ops\n"
               "       list the supported operators with their opsets and pattern kinds\n"
               "  compile <model.onnx> -o <model.so> [--target T] [--threads N]\n"
               "      [--input-shape NAME=1x3x224x224]... [--no-fusion]\n"
               "      [--no-blocked-layout] [--no-winograd] [--records DB]\n"
               "       compile a model into one shared library (kernels, weights, plan); with\n"
               "       --records, each kernel takes the best schedule tuned for it; a\n"
               "       sequence input takes its elements' shapes: NAME=[2x3,5]; --target is a\n"
               "       shorthand (x86-64-avx2, x86-64-avx512, x86-64-v2|v3|v4) or\n"
               "       \"llvm -mcpu=CPU -mattr=+f,-g\" (default: this machine)\n"
               "  tune <model.onnx> --records DB [--trials N] [--time-budget 10m]\n"
               "      [--tuner xgb|ga|random|grid] [--search template|auto|template,auto]\n"
               "      [--threads T] [--target T] [--weights cold|warm] [--batch N] [--curves DIR]\n"
               "      [--flush-cache] [--list-tasks] [--export F.jsonl] [--import F.jsonl]\n"
               "       search schedules for the model's kernels; every measurement is recorded\n"
               "  inspect <model.onnx> [--print-after PASS|all] [--input-shape ...] [--no-fusion]\n"
               "       print the graph after each pass, the fused groups and the memory plan\n"
               "  bench <model.onnx|model.so> [--threads N] [--runs R] [--warmup W] [--no-profile]\n"
               "      [--memory]\n"
               "       latency (median, p90) and the time share of each kernel; with --memory,\n"
               "       the resident memory after the warm-up, 1,000 runs and all runs\n"
               "  run <model.so> --input [NAME=]FILE.npy... [--output-dir DIR] [--threads N]\n"
               "      [--profile]\n"
               "       run a compiled model library; print (and write) its outputs\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage();
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "demo") return tessel::cli::run_demo(args);
    if (command == "test-onnx") return tessel::cli::run_test_onnx(args);
    if (command == "list-ops") return tessel::cli::run_list_ops(args);
    if (command == "run") return tessel::cli::run_model(args);
    if (command == "compile") return tessel::cli::run_compile(args);
    if (command == "inspect") return tessel::cli::run_inspect(args);
    if (command == "bench") return tessel::cli::run_bench(args);
    if (command == "tune") return tessel::cli::run_tune(args);
    if (command == "--help" || command == "help") {
      print_usage();
      return 0;
    }
    std::cerr << "tessel: unknown command '" << command << "'\n";
    print_usage();
    return 2;
  } catch (const tessel::CompileError& e) {
    std::cerr << "tessel: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tessel: failure: " << e.what() << "\n";
    return 1;
  }
}
