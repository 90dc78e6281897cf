// Test shared object that is a fine library but not a cmfpipe plugin: no entry point.
extern "C" __attribute__((visibility("default"))) int cmfpipe_test_answer() {
    return 42;
}
