/* The groups of C tests (each a function in its own file, run by main.c). */
#ifndef CR_TESTS_H
#define CR_TESTS_H
void test_example(void);
void test_semantics(void);
void test_errors(void);
void test_ownership(void);
void test_threads(void);
void test_features(void);
void test_reliability(void);
void test_abi(void);
void test_reentry(void);
void test_reload(void);
void test_env(void);
void test_forms(void);
void test_edges(void);
void test_outside(void);
void test_loadmemory(void);
#endif
