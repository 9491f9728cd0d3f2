#ifndef CONTROLLERREG_CYAML_SHIM_H
#define CONTROLLERREG_CYAML_SHIM_H
#include <yaml.h>
#endif
