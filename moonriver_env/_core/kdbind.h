/* The CPython binding of Kingdomino in the native core (kdbind.c), added to
 * moonriver_env._native by module.c. */
#ifndef MOONRIVER_KDBIND_H
#define MOONRIVER_KDBIND_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Adds the kd_* functions, the KdState type and the Kingdomino constants to the module;
 * 0, or -1 with an exception set. */
int kd_add_to_module(PyObject *m);

/* The buffer of obj as count items of one of the struct codes in format (module.c); 0, or
 * -1 with TypeError/ValueError set (nothing held). */
int get_buffer(PyObject *obj, Py_buffer *view, const char *name, const char *format,
               Py_ssize_t itemsize, Py_ssize_t count, int writable);

#endif
