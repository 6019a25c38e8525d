#include "mid.h"
