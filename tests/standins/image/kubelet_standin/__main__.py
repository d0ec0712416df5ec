# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""`python -m kubelet_standin`: run the kubelet STAND-IN (not the real kubelet)."""

import sys

from .start import main

sys.exit(main())
