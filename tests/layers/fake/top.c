#include "top.h"
#include "other.h"
