#include "mid.h"
#include <stdio.h>
