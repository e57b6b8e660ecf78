// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

/// @notice Mutex against re-entrant calls, after the ReentrancyGuard pattern (OpenZeppelin).
/// Plain storage rather than transient storage so that the bytecode runs on pre-Cancun chains;
/// the values 1 and 2 (never 0) keep each lock and unlock a cheap non-zero to non-zero write.
abstract contract ReentrancyGuard {
    uint256 private constant NOT_ENTERED = 1;
    uint256 private constant ENTERED = 2;

    uint256 private _status = NOT_ENTERED;

    error ReentrantCall();

    modifier nonReentrant() {
        if (_status == ENTERED) revert ReentrantCall();
        _status = ENTERED;
        _;
        _status = NOT_ENTERED;
    }
}
