// WAMR's exec_env->module_inst swap (execenv.oc) as the C a runtime
// writes it: a parent thread runs a child instance's start function on
// its own exec_env with module_inst swapped to the child, while another
// thread of the cluster traps and spreads its exception over the
// cluster's exec_envs (issue #2680; fixes in PRs #2685, #2882). Each fix
// of execenv.oc is a variant, chosen by macros; -DEMBEDDER is its
// SPAWN=embedder, -DHWB=0 its HWB=0. A test (c_test.go) holds the
// verdicts to execenv.oc's.
//
// ordercheck: variant original default shipped
// ordercheck: variant skip-start -DSKIP_START
// ordercheck: variant lock-across-start -DLOCK_ACROSS_START
// ordercheck: variant pr2685 -DPR2685
// ordercheck: variant pr2882 -DPR2685 -DPR2882
// ordercheck: variant temp-env -DTEMP_ENV
// ordercheck: variant start-in-child -DSTART_IN_CHILD
// ordercheck: variant exc-in-env -DEXC_IN_ENV
//
// ordercheck: property deliver "an exception raised while the child's start runs reaches the parent's instance"
// ordercheck: property start-once "the child's start runs once, with the child instance current"
// ordercheck: property tls "every wasm call uses the thread's TLS exec_env (hardware bound checks)"
#include <assert.h>
#include <genmc.h>
#include <pthread.h>
#include <stddef.h>

#ifndef HWB
#define HWB 1 // hardware bound checks: a wasm call must use the thread's TLS exec_env
#endif

// A module instance: its exception slot (under exception_lock) and how
// often its start function ran.
struct module_inst {
	int exc;
	int started;
};

// An exec_env: the current module instance, membership of the cluster's
// list, and (option 4) an exception slot.
struct exec_env {
	struct module_inst *module_inst;
	int in_list;
	int exception;
};

struct module_inst I_P = {0, 1}; // the parent's instance
struct module_inst I_T = {0, 1}; // the trapping thread's instance
struct module_inst I_C = {0, 0}; // the child instance being instantiated
struct exec_env E_P = {&I_P, 1, 0};
struct exec_env E_T = {&I_T, 1, 0};
struct exec_env E_C = {&I_C, 0, 0};
struct exec_env E_tmp = {&I_C, 0, 0}; // option (3)'s temporary exec_env
int has_exception; // cluster->has_exception
int tls_bad;       // a wasm call on a foreign exec_env was refused
pthread_mutex_t cluster_list_lock;
pthread_mutex_t cluster_lock;
pthread_mutex_t exception_lock; // the global exception lock of #2509
pthread_t child_thread;

static void spread_to(struct module_inst *inst)
{
	pthread_mutex_lock(&exception_lock);
	inst->exc = 1;
	pthread_mutex_unlock(&exception_lock);
}

// wasm_set_exception: find the exec_env running inst; spread over the
// cluster if one is found, else set inst's own exception.
static void set_exception(struct module_inst *inst)
{
	pthread_mutex_lock(&cluster_list_lock);
	pthread_mutex_lock(&cluster_lock); // wasm_cluster_search_exec_env
	int found = 0;
	if (E_P.module_inst == inst)
		found = 1;
	if (E_T.module_inst == inst)
		found = 1;
	if (E_C.in_list == 1 && E_C.module_inst == inst)
		found = 1;
	pthread_mutex_unlock(&cluster_lock);
	pthread_mutex_unlock(&cluster_list_lock);
	if (!found) {
		spread_to(inst);
		return;
	}
	pthread_mutex_lock(&cluster_lock);
	has_exception = 1;
#ifdef EXC_IN_ENV
	E_P.exception = 1;
	E_T.exception = 1;
	if (E_C.in_list == 1)
		E_C.exception = 1;
#else
	// set_exception_visitor
	spread_to(E_P.module_inst);
	spread_to(E_T.module_inst);
	if (E_C.in_list == 1)
		spread_to(E_C.module_inst);
#endif
	pthread_mutex_unlock(&cluster_lock);
}

// wasm_call_function(env, start of inst) on a thread whose TLS exec_env
// is tls.
static void run_start(struct exec_env *env, struct module_inst *inst, struct exec_env *tls)
{
	if (HWB == 1 && env != tls) {
		tls_bad = 1; // "invalid exec env": start is skipped
		return;
	}
	int n = inst->started;
	inst->started = n + 1;
	assert(env->module_inst == inst && "start-once: start ran with another instance current");
	if (__VERIFIER_nondet_bool()) // the start function may trap
		set_exception(inst);
}

// Before the start function: make the child instance current on the
// parent's exec_env, returning the instance it replaces.
static struct module_inst *set_module_inst(void)
{
	struct module_inst *saved;
#if defined(LOCK_ACROSS_START)
	pthread_mutex_lock(&cluster_lock); // held until restore_module_inst
	saved = E_P.module_inst;
	E_P.module_inst = &I_C;
#elif defined(PR2685)
	saved = E_P.module_inst;
	pthread_mutex_lock(&cluster_lock);
	E_P.module_inst = &I_C;
	pthread_mutex_unlock(&cluster_lock);
#else
	saved = E_P.module_inst;
	E_P.module_inst = &I_C;
#endif
	return saved;
}

// After it: make saved current again.
static void restore_module_inst(struct module_inst *saved)
{
#if defined(LOCK_ACROSS_START)
	E_P.module_inst = saved;
	pthread_mutex_unlock(&cluster_lock);
#elif defined(PR2685)
	struct module_inst *old = E_P.module_inst; // own read, unlocked
	pthread_mutex_lock(&cluster_lock);
	E_P.module_inst = saved;
	pthread_mutex_lock(&exception_lock);
	int exc = old->exc;
	pthread_mutex_unlock(&exception_lock);
	pthread_mutex_unlock(&cluster_lock);
	if (exc != 0) { // the exception moves back to the own instance
		pthread_mutex_lock(&exception_lock);
		saved->exc = exc;
		pthread_mutex_unlock(&exception_lock);
	}
#else
	E_P.module_inst = saved;
#endif
}

static void *child(void *arg);

// execute_post_instantiate_functions for the child instance.
static void post_instantiate(void)
{
#if defined(TEMP_ENV)
	run_start(&E_tmp, &I_C, &E_P);
#elif !defined(SKIP_START) && !defined(START_IN_CHILD)
	struct module_inst *saved = set_module_inst();
	run_start(&E_P, &I_C, &E_P);
	restore_module_inst(saved);
#endif
}

// wasm_cluster_create_thread, cluster_lock held: refused after an
// exception.
static int create_thread(void)
{
	if (has_exception != 0)
		return 0;
	E_C.in_list = 1;
	pthread_create(&child_thread, NULL, child, NULL);
	return 1;
}

static void *child(void *arg)
{
#ifdef START_IN_CHILD
	run_start(&E_C, &I_C, &E_C); // option (5)
#endif
	// wasi_thread_start(I_C) runs here.
	return NULL;
}

// The spawning thread: thread_spawn_wrapper, or (EMBEDDER) the
// embedder's wasm_cluster_spawn_exec_env, which held cluster_lock across
// instantiation until #2882.
static void *parent(void *arg)
{
	int created;
#if defined(EMBEDDER) && !defined(PR2882)
	pthread_mutex_lock(&cluster_lock);
	post_instantiate();
	created = create_thread();
	pthread_mutex_unlock(&cluster_lock);
#else
	post_instantiate();
	pthread_mutex_lock(&cluster_lock);
	created = create_thread();
	pthread_mutex_unlock(&cluster_lock);
#endif
	if (created)
		pthread_join(child_thread, NULL); // so that main's checks see its end
	return NULL;
}

// Another thread of the cluster traps.
static void *trapper(void *arg)
{
	set_exception(&I_T);
	return NULL;
}

int main(void)
{
	pthread_t p, t;
	pthread_create(&p, NULL, parent, NULL);
	pthread_create(&t, NULL, trapper, NULL);
	pthread_join(p, NULL);
	pthread_join(t, NULL);
	assert((I_P.exc != 0 || E_P.exception != 0) && "deliver: the trapper's exception never reached the parent's instance");
	assert((I_C.started == 1 || E_C.in_list == 0) && "start-once: the child was created but its start function did not run once");
	assert(tls_bad == 0 && "tls: a wasm call used an exec_env other than the thread's TLS exec_env (invalid exec env)");
	return 0;
}

// execenv.oc's verdicts for SPAWN=wasi (linearizability has no
// counterpart in C: no operations).
// ordercheck: expect *: holds
// ordercheck: expect original: violates data-race, deliver
// ordercheck: expect skip-start: violates start-once
// ordercheck: expect lock-across-start: violates deadlock, locking
// ordercheck: expect temp-env: violates start-once, tls
// ordercheck: expect exc-in-env: violates data-race
