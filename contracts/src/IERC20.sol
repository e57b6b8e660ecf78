// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// @notice The two ERC-20 functions the forwarders use. `transfer` is never called through
/// this interface (see SafeTransfer): tokens such as USDT declare it without a return value.
interface IERC20 {
    function balanceOf(address account) external view returns (uint256);

    function transfer(address to, uint256 amount) external returns (bool);
}
