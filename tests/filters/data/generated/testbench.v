// ================================================================================ //
// NEORV32 - Verilog testbench                                                      //
// -------------------------------------------------------------------------------- //
// Simple testbench for the auto-generated all-Verilog version of NEORV32.          //
// Checks for the initial UART output of the bootloader ("NEORV32").                //
// -------------------------------------------------------------------------------- //
// The NEORV32 RISC-V Processor - https://github.com/stnolting/neorv32              //
// Copyright (c) NEORV32 contributors.                                              //
// Copyright (c) 2020 - 2026 Stephan Nolting. All rights reserved.                  //
// Licensed under the BSD-3-Clause license, see LICENSE for details.                //
// SPDX-License-Identifier: BSD-3-Clause                                            //
// ================================================================================ //

`timescale 1 ns/100 ps // time-unit = 1 ns, precision = 100 ps
